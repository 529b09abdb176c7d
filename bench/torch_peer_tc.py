#!/usr/bin/env python3
"""torch_peer_tc.py — the mixed-precision GEMM as a PyTorch user calls it, beside PyTorch itself.

For each size n and type, C = A B (n x n x n) is computed by `gemmkit.gemm` on torch CUDA tensors
and by PyTorch (torch.matmul for bf16/f16/tf32, torch._scaled_mm, i.e. cuBLASLt FP8, for e4m3 with
A row-major and B column-major as _scaled_mm requires), one after the other in the same process:
uniform [-1, 1) inputs, L2 flushed before every run, median of --reps CUDA-event timings after
warm-up. The check is gemmkit's result against PyTorch's in float64 (relative Frobenius norm).

This is the FP8 peer of the mixed-precision sweep (`gemmkit bench --dtype`), and it measures the
Python path's cost. Writes CSV rows to --csv (else stdout). Exit status 2 without torch or a GPU.
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "python"))
try:
    import torch
    import gemmkit
except ImportError as e:
    print(f"torch_peer_tc.py: {e}", file=sys.stderr)
    sys.exit(2)


def timed(fn, reps, flush):
    times = []
    for i in range(reps + 3):
        flush.fill_(i & 0xFF)
        e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        e0.record()
        fn()
        e1.record()
        torch.cuda.synchronize()
        if i >= 3:
            times.append(e0.elapsed_time(e1))
    times.sort()
    return times[len(times) // 2]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="1024,2048,4096,8192,16384")
    ap.add_argument("--dtypes", default="bf16,f16,tf32,e4m3")
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--csv")
    args = ap.parse_args()
    if not torch.cuda.is_available():
        print("torch_peer_tc.py: no CUDA device", file=sys.stderr)
        sys.exit(2)
    flush = torch.empty(256 << 20, dtype=torch.uint8, device="cuda")
    one = torch.ones((), device="cuda", dtype=torch.float32)
    rows = ["dtype,n,gemmkit_ms,gemmkit_tflops,torch_ms,torch_tflops,ratio,rel_diff"]
    for n in [int(s) for s in args.sizes.split(",")]:
        for dt in args.dtypes.split(","):
            a32 = torch.rand(n, n, device="cuda") * 2 - 1
            b32 = torch.rand(n, n, device="cuda") * 2 - 1
            if dt == "e4m3":
                a = a32.to(torch.float8_e4m3fn)
                b = b32.to(torch.float8_e4m3fn).t().contiguous().t()  # column-major
                c = torch.empty(n, n, device="cuda", dtype=torch.bfloat16)
                ours = lambda: gemmkit.gemm(a, b, c)
                peer = lambda: torch._scaled_mm(a, b, scale_a=one, scale_b=one,
                                                out_dtype=torch.bfloat16)
            else:
                t = {"bf16": torch.bfloat16, "f16": torch.float16, "tf32": torch.float32}[dt]
                a, b = a32.to(t), b32.to(t)
                c = torch.empty(n, n, device="cuda", dtype=t)
                torch.backends.cuda.matmul.allow_tf32 = dt == "tf32"
                mode = "tf32" if dt == "tf32" else None
                ours = lambda: gemmkit.gemm(a, b, c, fp32_mode=mode)
                peer = lambda: torch.matmul(a, b)
            ours()
            ref = peer()
            torch.cuda.synchronize()
            diff = ((c.double() - ref.double()).norm() / ref.double().norm()).item()
            ms_g, ms_t = timed(ours, args.reps, flush), timed(peer, args.reps, flush)
            f = 2.0 * n ** 3 / 1e9
            rows.append(f"{dt},{n},{ms_g:.4f},{f / ms_g:.1f},{ms_t:.4f},{f / ms_t:.1f},"
                        f"{ms_t / ms_g:.3f},{diff:.2e}")
            print(rows[-1], flush=True)
    if args.csv:
        with open(args.csv, "w") as fh:
            fh.write("\n".join(rows) + "\n")


if __name__ == "__main__":
    main()
