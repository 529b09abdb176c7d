#!/usr/bin/env python3
"""python_shapes.py — issue 18's shape table measured the way a PyTorch user calls gemmkit:
`gemmkit.gemm(a, b, c)` on torch CUDA float32 tensors against `torch.matmul(a, b, out=c)`
(cuBLAS, TF32 off), same tensors, same process.

Per shape: both results checked against a float64 torch reference at every element with the
tests' bound (harness/rule.h: |err| <= (k + 2) * FLT_EPSILON * (|A| |B|) + FLT_MIN), then each
side timed with CUDA events around single calls, an L2-sized buffer overwritten before every
call (outside the events), the two alternating over --rounds rounds of --reps calls; medians.
Prints a table and writes --csv. Row-major shapes M x N x K (A M x K, B K x N).
"""
import argparse
import csv
import os
import statistics
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))

DEFAULT = ("512,1000,2048,3072,4096,64x8192x8192,8192x64x8192,128x8192x8192,256x8192x8192,"
           "8192x8192x64,8192x8192x256,4097x4095x4093,1x8192x8192,8192x1x8192")


def shapes(text):
    out = []
    for item in text.split(","):
        dims = [int(x) for x in item.split("x")]
        out.append(tuple(dims * 3) if len(dims) == 1 else tuple(dims))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", default=DEFAULT)
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--csv", default=None)
    args = ap.parse_args()
    try:
        import torch
    except ImportError:
        print("python_shapes: torch is not installed")
        return 2
    if not torch.cuda.is_available():
        print("python_shapes: no CUDA device")
        return 2
    import gemmkit

    torch.backends.cuda.matmul.allow_tf32 = False
    dev = torch.device("cuda")
    l2 = torch.cuda.get_device_properties(0).L2_cache_size
    flush = torch.empty(max(2 * l2, 64 << 20), dtype=torch.uint8, device=dev)
    name = torch.cuda.get_device_name(0)
    rows = []
    status = 0
    print(f"{'shape':>18} {'gemmkit_ms':>10} {'torch_ms':>10} {'gk TFLOPS':>9} {'ratio':>6}  check")
    for m, n, k in shapes(args.sizes):
        g = torch.Generator(device=dev).manual_seed(m * 31 + n * 7 + k)
        a = torch.rand(m, k, device=dev, generator=g) * 2 - 1
        b = torch.rand(k, n, device=dev, generator=g) * 2 - 1
        c = torch.empty(m, n, device=dev)
        ref = (a.double() @ b.double())
        bound = (k + 2) * 2.0**-23 * (a.double().abs() @ b.double().abs()) + 2.0**-126
        calls = {"gemmkit": lambda: gemmkit.gemm(a, b, c),
                 "torch": lambda: torch.matmul(a, b, out=c)}
        check = {}
        for side, fn in calls.items():
            c.fill_(float("nan"))
            fn()
            torch.cuda.synchronize()
            bad = int(((c.double() - ref).abs() > bound).sum()) + int(torch.isnan(c).sum())
            check[side] = "ok" if bad == 0 else f"FAIL {bad} bad"
            if bad:
                status = 1
        del ref, bound
        times = {s: [] for s in calls}
        for r in range(args.rounds):
            order = list(calls) if r % 2 == 0 else list(calls)[::-1]
            for side in order:
                if check[side] != "ok":
                    continue
                ev = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True))
                      for _ in range(args.reps)]
                for s, e in ev:
                    flush.fill_(r & 0xff)
                    s.record()
                    calls[side]()
                    e.record()
                torch.cuda.synchronize()
                times[side] += [s.elapsed_time(e) for s, e in ev]
        med = {s: statistics.median(t) if t else float("nan") for s, t in times.items()}
        tf = 2 * m * n * k / med["gemmkit"] / 1e9
        ratio = med["torch"] / med["gemmkit"]
        shape = f"{m}x{n}x{k}"
        print(f"{shape:>18} {med['gemmkit']:10.4f} {med['torch']:10.4f} {tf:9.2f} {ratio:6.3f}  "
              f"{check['gemmkit']}/{check['torch']}", flush=True)
        rows.append({"device": name, "m": m, "n": n, "k": k, "gemmkit_ms": f"{med['gemmkit']:.5f}",
                     "torch_ms": f"{med['torch']:.5f}", "gemmkit_tflops": f"{tf:.2f}",
                     "gemmkit_over_torch": f"{ratio:.4f}", "check_gemmkit": check["gemmkit"],
                     "check_torch": check["torch"]})
        del a, b, c
        torch.cuda.empty_cache()
    if args.csv and rows:
        with open(args.csv, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(rows[0]))
            w.writeheader()
            w.writerows(rows)
    return status


if __name__ == "__main__":
    sys.exit(main())
