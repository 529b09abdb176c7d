#!/usr/bin/env python3
"""triton_peer.py — an autotuned Triton SGEMM as a peer for `gemmkit ladder`.

One Triton matmul kernel (grouped tile order for L2 reuse, masked edges) autotuned over a small
set of tile shapes, run with IEEE FP32 products (input_precision="ieee") and with TF32 tensor
cores (input_precision="tf32"). For each size n, C = A B (n x n x n, row-major, uniform [-1, 1)
inputs) is checked on the GPU against a float64 reference with the gemmkit accuracy rule
(harness/harness.py; u_in = 2^-11 for TF32), then timed with triton.testing.do_bench (median;
do_bench clears the L2 between runs).

Writes CSV rows "size,variant,ms,tflops,check" (to --csv, else stdout), which `gemmkit ladder
--triton` merges into its table. Exit status 2 when torch/triton/a GPU are missing.
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "harness"))
from harness import compare, reference  # noqa: E402  (after the path it lives on)

try:
    import torch
    import triton
    import triton.language as tl
except ImportError as e:  # the ladder reports this and carries on
    print(f"triton_peer.py: {e}; no Triton peer", file=sys.stderr)
    sys.exit(2)


def _configs():
    shapes = [  # (BM, BN, BK, stages, warps)
        (128, 256, 32, 3, 8), (256, 128, 32, 3, 8), (128, 128, 32, 4, 4), (128, 128, 16, 4, 8),
        (128, 64, 32, 4, 4), (64, 128, 32, 4, 4), (64, 64, 32, 5, 2), (128, 256, 16, 4, 8),
    ]
    return [triton.Config({"BM": bm, "BN": bn, "BK": bk, "GROUP_M": 8}, num_stages=s, num_warps=w)
            for bm, bn, bk, s, w in shapes]


@triton.autotune(configs=_configs(), key=["M", "N", "K", "PRECISION"])
@triton.jit
def _matmul(a, b, c, M, N, K, sam, sak, sbk, sbn, scm, scn, PRECISION: tl.constexpr,
            BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, GROUP_M: tl.constexpr):
    # Consecutive programs walk down a group of GROUP_M tile rows before moving right, so the
    # tiles of B they share are still in L2.
    pid = tl.program_id(0)
    tiles_m, tiles_n = tl.cdiv(M, BM), tl.cdiv(N, BN)
    per_group = GROUP_M * tiles_n
    first_m = (pid // per_group) * GROUP_M
    group_rows = min(tiles_m - first_m, GROUP_M)
    pm = first_m + (pid % per_group) % group_rows
    pn = (pid % per_group) // group_rows
    rm = pm * BM + tl.arange(0, BM)
    rn = pn * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(0, K, BK):
        ka = k0 + rk
        ta = tl.load(a + rm[:, None] * sam + ka[None, :] * sak,
                     mask=(rm[:, None] < M) & (ka[None, :] < K), other=0.0)
        tb = tl.load(b + ka[:, None] * sbk + rn[None, :] * sbn,
                     mask=(ka[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc = tl.dot(ta, tb, acc, input_precision=PRECISION)
    tl.store(c + rm[:, None] * scm + rn[None, :] * scn, acc,
             mask=(rm[:, None] < M) & (rn[None, :] < N))


def matmul(a, b, precision):
    m, k = a.shape
    _, n = b.shape
    c = torch.empty((m, n), device=a.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(m, meta["BM"]) * triton.cdiv(n, meta["BN"]),)
    _matmul[grid](a, b, c, m, n, k, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                  c.stride(0), c.stride(1), PRECISION=precision)
    return c


def check(a, b, c, u_in):
    """Worst err/bound over C and the number of elements beyond the bound (NaN counts)."""
    ref, scale = reference(a, b)
    err, bound, bad = compare(c, ref, scale, a.shape[1], u_in)
    ratio = torch.nan_to_num(err / bound, nan=float("inf"))
    return ratio.max().item(), int(bad.sum().item())


def main():
    ap = argparse.ArgumentParser(description="autotuned Triton SGEMM peer (FP32 IEEE and TF32)")
    ap.add_argument("--sizes", default="4096,8192")
    ap.add_argument("--csv", default=None, help="write rows here instead of stdout")
    args = ap.parse_args()
    if not torch.cuda.is_available():
        print("triton_peer.py: no CUDA device", file=sys.stderr)
        return 2
    rows = []
    for n in [int(s) for s in args.sizes.split(",") if s]:
        gen = torch.Generator(device="cuda").manual_seed(n)
        a = torch.rand((n, n), device="cuda", generator=gen) * 2 - 1
        b = torch.rand((n, n), device="cuda", generator=gen) * 2 - 1
        for variant, precision, u_in in (("fp32_ieee", "ieee", 0.0), ("tf32", "tf32", 2.0**-11)):
            try:
                c = matmul(a, b, precision)  # also runs the autotuner for this shape
                torch.cuda.synchronize()
                worst, bad = check(a, b, c, u_in)
                status = f"ok {worst:.2g}" if bad == 0 else f"FAIL {bad} bad, worst err/bound {worst:.3g}"
                ms = triton.testing.do_bench(lambda: matmul(a, b, precision), return_mode="median") \
                    if bad == 0 else float("nan")
            except Exception as e:  # a compile/launch problem of one variant
                status, ms = f"ERROR {type(e).__name__}: {str(e).splitlines()[0][:80]}", float("nan")
            tflops = 2.0 * n**3 / (ms * 1e-3) / 1e12 if ms == ms else float("nan")
            rows.append((n, variant, ms, tflops, status.replace(",", ";")))
            print(f"triton_peer.py: n={n} {variant}: {ms:.3f} ms {tflops:.2f} TFLOPS {status}",
                  file=sys.stderr)
        del a, b
        torch.cuda.empty_cache()
    out = open(args.csv, "w") if args.csv else sys.stdout
    out.write("size,variant,ms,tflops,check\n")
    for n, v, ms, tf, st in rows:
        out.write(f"{n},{v},{ms:.4f},{tf:.3f},{st}\n")
    if args.csv:
        out.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
