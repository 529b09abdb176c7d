#!/usr/bin/env python3
"""plot_dist.py — PNG of the CSV written by gk-dist-bench (the distributed SGEMM over NCCL):
TFLOPS against the number of GPUs with linear scaling from the 1-GPU row as a dashed line, each
point labelled with its grid and efficiency.

usage: plot_dist.py RESULTS.csv OUT.png
Exits 0 with a message (and no PNG) when matplotlib is not installed, so a benchmark run never
fails for want of a plotting library.
"""
import csv
import sys


def main():
    if len(sys.argv) != 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    src, out = sys.argv[1], sys.argv[2]
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("plot_dist.py: matplotlib not installed (apt-get install python3-matplotlib); no plot")
        return 0

    with open(src, newline="") as f:
        rows = list(csv.DictReader(f))
    if not rows:
        print("plot_dist.py: %s has no results; no plot" % src)
        return 0
    # the 1-GPU row of a panel width (the panel loop's own cost) is not a point of the scaling line
    rows = [r for r in rows if r["gpus"] != "1" or r["panel"] == "0"]
    gpus = [int(r["gpus"]) for r in rows]
    tflops = [float(r["tflops"]) for r in rows]
    base = next((t for g, t in zip(gpus, tflops) if g == 1), None)

    fig, ax = plt.subplots(figsize=(6, 4))
    ax.plot(gpus, tflops, "o-", label="gk_cuda_dist_sgemm")
    if base is not None:
        ax.plot(gpus, [base * g for g in gpus], "--", color="gray", label="linear from 1 GPU")
    for r, g, t in zip(rows, gpus, tflops):
        ax.annotate("%s, %.0f %%" % (r["grid"], 100 * float(r["efficiency"])), (g, t),
                    textcoords="offset points", xytext=(4, -12), fontsize=8)
    ax.set_xlabel("GPUs")
    ax.set_ylabel("TFLOPS (FP32)")
    ax.set_xticks(gpus)
    ax.set_title("SGEMM %s^2 over NCCL (SUMMA)" % rows[0]["size"])
    ax.legend()
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    print("plot_dist.py: wrote %s" % out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
