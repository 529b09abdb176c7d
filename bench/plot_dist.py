#!/usr/bin/env python3
"""plot_dist.py — PNG of the CSV written by gk-dist-bench (the distributed SGEMM over NCCL):
TFLOPS against the number of GPUs with linear scaling from the 1-GPU row as a dashed line, each
point labelled with its grid and efficiency.

usage: plot_dist.py RESULTS.csv OUT.png
Exits 0 with a message (and no PNG) when matplotlib is not installed, so a benchmark run never
fails for want of a plotting library.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from plot import start  # noqa: E402  (the scripts' shared start: arguments, matplotlib, rows)


def main():
    started = start("plot_dist.py", __doc__)
    if isinstance(started, int):
        return started
    rows, out, plt = started
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
