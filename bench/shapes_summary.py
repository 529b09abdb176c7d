#!/usr/bin/env python3
"""shapes_summary.py — the summary of a `gemmkit bench --dtype D --shapes llm` CSV
(docs/benchmarks.md, "Shapes of models"): gemmkit over its peer per cell, the median and lowest
ratio per M class, and for M <= 128 the achieved bandwidth (bytes of A, W and C over gemmkit's
median time) next to the measured copy bandwidth. Squares (M = N = K) are reported apart.

    python3 bench/shapes_summary.py gpu_tc.csv [--copy-bw copy_bw.txt]
"""
import argparse
import csv
import re
import statistics

CLASSES = [("M=1", 1, 1), ("M=16-64", 16, 64), ("M=128-256", 128, 256), ("M=512-1024", 512, 1024),
           ("M=2048-16384", 2048, 16384)]
ELEM = {"bfloat16": 2, "float16": 2, "tfloat32": 4, "float32": 4, "float8_e4m3fn": 1,
        "float8_e5m2": 1}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("csv")
    ap.add_argument("--copy-bw", help="file with 'copy_bw_tbs X' (scripts/device_shapes.sh)")
    args = ap.parse_args()
    copy_bw = None
    if args.copy_bw:
        m = re.search(r"copy_bw_tbs\s+([0-9.]+)", open(args.copy_bw).read())
        copy_bw = float(m.group(1)) if m else None
    rows = [r for r in csv.DictReader(open(args.csv)) if r.get("gk_over_peer") not in ("", None)]
    grid, squares = [], []
    for r in rows:
        try:
            m, n, k = int(r["m"]), int(r["n"]), int(r["k"])
            ratio = float(r["gk_over_peer"])
        except ValueError:
            continue
        (squares if m == n == k else grid).append((m, n, k, ratio, r))
    print(f"{'class':<14} {'cells':>5} {'median':>7} {'lowest':>7}  lowest at")
    for name, lo, hi in CLASSES:
        cells = [g for g in grid if lo <= g[0] <= hi]
        if not cells:
            continue
        worst = min(cells, key=lambda g: g[3])
        print(f"{name:<14} {len(cells):>5} {statistics.median(g[3] for g in cells):>7.3f} "
              f"{worst[3]:>7.3f}  {worst[0]}x{worst[1]}x{worst[2]}")
    if grid:
        allr = [g[3] for g in grid]
        m16 = [g[3] for g in grid if g[0] >= 16]
        print(f"{'grid':<14} {len(allr):>5} {statistics.median(allr):>7.3f} {min(allr):>7.3f}"
              f"  (M >= 16: lowest {min(m16):.3f})" if m16 else "")
    if squares:
        print("squares: " + ", ".join(f"{s[0]}: {s[3]:.3f}" for s in sorted(squares, key=lambda s: s[0])))
    small = [g for g in grid if g[0] <= 128]
    if small:
        print(f"\nM <= 128, bytes of A, W and C over the median time"
              + (f" (copy bandwidth {copy_bw:.2f} TB/s)" if copy_bw else ""))
        print(f"{'shape':<20} {'gk TB/s':>8} {'peer TB/s':>9} {'gk/copy':>8} {'ratio':>6}")
        for m, n, k, ratio, r in sorted(small, key=lambda g: (g[1], g[2], g[0])):
            ea, ec = ELEM.get(r["a_type"], 2), ELEM.get(r["c_type"], 2)
            byts = (m * k + n * k) * ea + m * n * ec
            gk = byts / (float(r["gk_ms_median"]) * 1e-3) / 1e12
            peer = byts / (float(r["peer_ms_median"]) * 1e-3) / 1e12
            frac = f"{gk / copy_bw:8.2f}" if copy_bw else f"{'-':>8}"
            print(f"{m}x{n}x{k:<10} {gk:>8.2f} {peer:>9.2f} {frac} {ratio:>6.3f}")


if __name__ == "__main__":
    main()
