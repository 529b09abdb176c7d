#!/usr/bin/env python3
"""python_time_split.py — where a short gemmkit.gemm call's time goes from Python (issue 18),
beside torch.matmul(out=) on the same float32 CUDA tensors (TF32 off), n x n x n (argument,
default 512).

1. CUDA events around single calls, three ways, 4 alternating rounds of 30 calls, medians:
   "flush" after an L2-sized fill (as bench/python_shapes.py times them: when the host needs longer
   to queue a call than the GPU takes for the fill, the events include the host's time);
   "flush+sleep" with a sleep kernel queued after the fill, so the host's queueing is hidden and
   the events hold GPU time only; "noflush+sleep" the same without the fill.
2. Host microseconds per call while the GPU is busy (50 calls behind a sleep kernel, best of 5).
3. torch.profiler's table of 10 calls of each (the kernels each library launches).
Needs torch with CUDA. Results: bench/results/h100/python_512_split.txt.
"""
import os
import statistics
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))

ROUNDS, CALLS = 4, 30


def event_times(calls, mode, flush):
    """Median event time per side (microseconds) for one of the three modes."""
    import torch
    res = {side: [] for side in calls}
    for r in range(ROUNDS):
        order = list(calls.items()) if r % 2 == 0 else list(calls.items())[::-1]
        for side, fn in order:
            ev = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True))
                  for _ in range(CALLS)]
            for start, end in ev:
                if mode.startswith("flush"):
                    flush.fill_(r)
                if mode.endswith("sleep"):
                    torch.cuda._sleep(200000)
                start.record()
                fn()
                end.record()
            torch.cuda.synchronize()
            res[side] += [start.elapsed_time(end) * 1e3 for start, end in ev]
    return {side: statistics.median(t) for side, t in res.items()}


def host_time(fn):
    """Best of 5 of the mean host time of 50 calls queued behind a sleep kernel (microseconds)."""
    import torch
    best = float("inf")
    for _ in range(5):
        torch.cuda._sleep(20000000)
        torch.cuda.synchronize()
        torch.cuda._sleep(2000000)
        t0 = time.perf_counter()
        for _ in range(50):
            fn()
        best = min(best, (time.perf_counter() - t0) / 50 * 1e6)
        torch.cuda.synchronize()
    return best


def main():
    import torch
    from torch.profiler import ProfilerActivity, profile

    if not torch.cuda.is_available():
        print("python_time_split: no CUDA device")
        return 2
    import gemmkit
    torch.backends.cuda.matmul.allow_tf32 = False
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 512
    dev = torch.device("cuda")
    a = torch.rand(n, n, device=dev) * 2 - 1
    b = torch.rand(n, n, device=dev) * 2 - 1
    c = torch.empty(n, n, device=dev)
    l2 = torch.cuda.get_device_properties(0).L2_cache_size
    flush = torch.empty(2 * l2, dtype=torch.uint8, device=dev)
    calls = {"gemmkit": lambda: gemmkit.gemm(a, b, c),
             "torch": lambda: torch.matmul(a, b, out=c)}
    for fn in calls.values():  # warm-up: contexts, cuBLAS handles, kernel loading
        for _ in range(20):
            fn()
    torch.cuda.synchronize()
    for mode in ("flush", "flush+sleep", "noflush+sleep"):
        t = event_times(calls, mode, flush)
        print(f"n={n} {mode:14s} gemmkit {t['gemmkit']:7.2f} us  torch {t['torch']:7.2f} us  "
              f"torch/gemmkit {t['torch'] / t['gemmkit']:.3f}")
    for side, fn in calls.items():
        print(f"n={n} host per call (GPU busy, queue not full) {side}: {host_time(fn):.2f} us "
              f"(min of 5)")
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        for _ in range(10):
            flush.fill_(1)
            calls["gemmkit"]()
            flush.fill_(2)
            calls["torch"]()
        torch.cuda.synchronize()
    print(prof.key_averages().table(sort_by="cuda_time_total", row_limit=12))
    return 0


if __name__ == "__main__":
    sys.exit(main())
