#!/usr/bin/env python3
"""torch_peer_cpu.py — torch's CPU matmul (oneDNN / MKL) as the peer of `gemmkit bench --device cpu
--dtype bf16|fp16` (issue 19): square row-major A @ B in bfloat16, float16 and float32 on T threads,
median of the calls made in at least one second after three warm-up calls, printed as CSV
(impl,dtype,n,threads,ms,gflops). Run it in the same device call as the gemmkit benchmark; results:
bench/results/xeon/README.md. Exit status 2 without torch.
Usage: python3 bench/torch_peer_cpu.py [THREADS] [SIZES, comma-separated]"""
import sys
import time

try:
    import torch
except ImportError:
    print("torch_peer_cpu.py: torch is not importable", file=sys.stderr)
    sys.exit(2)

threads = int(sys.argv[1]) if len(sys.argv) > 1 else torch.get_num_threads()
sizes = [int(s) for s in sys.argv[2].split(",")] if len(sys.argv) > 2 else [1024, 2048, 4096]
torch.set_num_threads(threads)
print("impl,dtype,n,threads,ms,gflops")
for dt in (torch.bfloat16, torch.float16, torch.float32):
    for n in sizes:
        a, b = torch.randn(n, n).to(dt), torch.randn(n, n).to(dt)
        for _ in range(3):
            torch.matmul(a, b)
        ts, end = [], time.perf_counter() + 1.0
        while time.perf_counter() < end or len(ts) < 5:
            t = time.perf_counter()
            torch.matmul(a, b)
            ts.append(time.perf_counter() - t)
        med = sorted(ts)[len(ts) // 2]
        print("torch,%s,%d,%d,%.3f,%.1f" % (str(dt).split(".")[-1], n, torch.get_num_threads(),
                                            med * 1e3, 2 * n**3 / med / 1e9))
