#!/usr/bin/env python3
"""python_time_split.py — where a short gemmkit.gemm call's time goes from Python (issue 18), beside
torch.matmul(out=) on the same float32 CUDA tensors (TF32 off), n x n x n (argument, default 512):
CUDA events around single calls after an L2 flush (as bench/python_shapes.py times them: the host's
queueing can show), then with a sleep kernel queued first (the events hold GPU time only), then
without the flush; host microseconds per call while the GPU is busy; torch.profiler's kernel table.
Needs torch with CUDA. Results: bench/results/h100/python_512_split.txt."""
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "python"))
import torch  # noqa: E402
import gemmkit  # noqa: E402
torch.backends.cuda.matmul.allow_tf32 = False
n = int(sys.argv[1]) if len(sys.argv) > 1 else 512
dev = torch.device("cuda")
a = torch.rand(n, n, device=dev) * 2 - 1; b = torch.rand(n, n, device=dev) * 2 - 1
c = torch.empty(n, n, device=dev)
flush = torch.empty(2 * torch.cuda.get_device_properties(0).L2_cache_size, dtype=torch.uint8, device=dev)
calls = {"gemmkit": lambda: gemmkit.gemm(a, b, c), "torch": lambda: torch.matmul(a, b, out=c)}
for f in calls.values():
    for _ in range(20): f()
torch.cuda.synchronize()
for mode in ("flush", "flush+sleep", "noflush+sleep"):
    res = {}
    for r in range(4):
        for side, f in (calls.items() if r % 2 == 0 else list(calls.items())[::-1]):
            ev = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(30)]
            for s, e in ev:
                if mode.startswith("flush"): flush.fill_(r)
                if mode.endswith("sleep"): torch.cuda._sleep(200000)
                s.record(); f(); e.record()
            torch.cuda.synchronize()
            res.setdefault(side, []).extend(s.elapsed_time(e) * 1e3 for s, e in ev)
    g, t = statistics.median(res["gemmkit"]), statistics.median(res["torch"])
    print(f"n={n} {mode:14s} gemmkit {g:7.2f} us  torch {t:7.2f} us  torch/gemmkit {t/g:.3f}")
for side, f in calls.items():
    ts = []
    for _ in range(5):
        torch.cuda._sleep(20000000); torch.cuda.synchronize()
        torch.cuda._sleep(2000000)
        t0 = time.perf_counter()
        for _ in range(50): f()
        ts.append((time.perf_counter() - t0) / 50 * 1e6)
        torch.cuda.synchronize()
    print(f"n={n} host per call (GPU busy, queue not full) {side}: {min(ts):.2f} us (min of 5)")
from torch.profiler import profile, ProfilerActivity
with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
    for _ in range(10):
        flush.fill_(1); calls["gemmkit"](); flush.fill_(2); calls["torch"]()
    torch.cuda.synchronize()
print(prof.key_averages().table(sort_by="cuda_time_total", row_limit=12))
