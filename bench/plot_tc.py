#!/usr/bin/env python3
"""plot_tc.py — plots of the mixed-precision benchmark (`gemmkit bench --dtype`, gpu_tc.csv).

Writes gpu_tc.png under --out (default: the CSV's folder): one panel per dtype (and result type,
layout and transposition, when a run has several, and peer, for a dtype with two: e4m3-b128 is
compared with cuBLASLt's per-tensor FP8 and with its 1x128 / 128x128 block scaling) with gemmkit's
TFLOPS against the size as a solid line and the peer's (cuBLASLt) dashed, the % of the datasheet
peak at the measured clock next to gemmkit's points, and below them the gemmkit / peer ratio with
the 1.0 line. The size axis is n for n x n x n problems, else (m n k)^(1/3). Only results whose
check passed are plotted.
"""
import argparse
import csv
import math
import os
import sys


def num(s):
    try:
        return float(s)
    except (TypeError, ValueError):
        return None


def load(path):
    """{(dtype, c_type, layout, trans, peer): [(size, gk TFLOPS, peer TFLOPS, gk % peak, peer)]},
    sorted."""
    series = {}
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            m, n, k = int(r["m"]), int(r["n"]), int(r["k"])
            size = m if m == n == k else round((m * n * k) ** (1 / 3))
            gk = num(r["gk_tflops"]) if r["gk_check"] == "ok" else None
            peer = num(r["peer_tflops"]) if r["peer_check"] == "ok" else None
            key = (r["dtype"], r["c_type"], r["layout"], r["trans"], r["peer"])
            series.setdefault(key, []).append((size, gk, peer, num(r["gk_pct_peak"]), r["peer"]))
    return {k: sorted(v) for k, v in series.items()}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("csv")
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("plot_tc.py: matplotlib is not installed; no plots", file=sys.stderr)
        return 0
    series = load(args.csv)
    if not series:
        print(f"plot_tc.py: no rows in {args.csv}", file=sys.stderr)
        return 1
    with open(args.csv, newline="") as f:
        device = next(csv.DictReader(f))["device"]
    out = args.out or os.path.dirname(os.path.abspath(args.csv))
    os.makedirs(out, exist_ok=True)
    # one label per panel, naming only what varies between the panels, and the peer where a
    # dtype has several
    keys = list(series)
    varies = [i for i in range(4) if len({k[i] for k in keys}) > 1] or [0]
    peers = {}
    for k in keys:
        peers.setdefault(k[:4], set()).add(k[4])

    cols = min(3, len(keys))
    rows = math.ceil(len(keys) / cols)
    fig, axes = plt.subplots(2 * rows, cols, figsize=(5.2 * cols, 5.5 * rows), squeeze=False,
                             gridspec_kw={"height_ratios": [3, 1] * rows})
    for idx, key in enumerate(keys):
        ax, rax = axes[2 * (idx // cols)][idx % cols], axes[2 * (idx // cols) + 1][idx % cols]
        pts = series[key]
        peer_name = next((p[4] for p in pts if p[4]), "peer")
        gk = [(p[0], p[1], p[3]) for p in pts if p[1] is not None]
        peer = [(p[0], p[2]) for p in pts if p[2] is not None]
        if gk:
            ax.plot([p[0] for p in gk], [p[1] for p in gk], "-o", ms=4, label="gemmkit",
                    color="tab:blue")
            for x, y, pct in gk:
                if pct is not None:
                    ax.annotate(f"{pct:.0f}%", (x, y), textcoords="offset points", xytext=(0, 5),
                                ha="center", fontsize=6, color="tab:blue")
        if peer:
            ax.plot([p[0] for p in peer], [p[1] for p in peer], "--s", ms=3, label=peer_name,
                    color="tab:gray")
        title = " ".join(key[i] for i in varies)
        ax.set_title(title + (" vs " + key[4] if len(peers[key[:4]]) > 1 else ""), fontsize=10)
        ax.set_ylabel("TFLOPS (median run)")
        ax.set_xscale("log", base=2)
        ax.set_ylim(bottom=0)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7, loc="lower right")
        ratio = [(p[0], p[1] / p[2]) for p in pts if p[1] is not None and p[2]]
        if ratio:
            rax.plot([p[0] for p in ratio], [p[1] for p in ratio], "-o", ms=3, color="tab:blue")
        rax.axhline(1.0, ls="--", color="k", lw=0.8)
        rax.set_xscale("log", base=2)
        rax.set_xlabel("n (m = n = k)")
        rax.set_ylabel("gemmkit / peer")
        rax.grid(alpha=0.3)
    for idx in range(len(keys), rows * cols):
        axes[2 * (idx // cols)][idx % cols].axis("off")
        axes[2 * (idx // cols) + 1][idx % cols].axis("off")
    fig.suptitle(f"Mixed-precision GEMM, {device}; % of the datasheet peak at the measured clock",
                 fontsize=11)
    fig.tight_layout()
    path = os.path.join(out, "gpu_tc.png")
    fig.savefig(path, dpi=120)
    plt.close(fig)
    print(f"plot_tc.py: wrote {path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
