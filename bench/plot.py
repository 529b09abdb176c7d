#!/usr/bin/env python3
"""plot.py — PNG of a CPU benchmark CSV written by `gemmkit bench`: one panel per thread count,
grouped bars of GFLOPS per shape for each implementation, and the measured FMA peak as a line.

usage: plot.py RESULTS.csv OUT.png
Exits 0 with a message (and no PNG) when matplotlib is not installed, so a benchmark run never
fails for want of a plotting library.
"""
import csv
import sys


def start(name, doc):
    """The common start of the plot scripts (`name RESULTS.csv OUT.png`): (rows, out, pyplot), or
    the exit status when there is nothing to plot (usage error 2; 0 without matplotlib or rows)."""
    if len(sys.argv) != 3:
        print(doc.strip(), file=sys.stderr)
        return 2
    src, out = sys.argv[1], sys.argv[2]
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("%s: matplotlib not installed (apt-get install python3-matplotlib); no plot" % name)
        return 0
    with open(src, newline="") as f:
        rows = list(csv.DictReader(f))
    if not rows:
        print("%s: %s has no results; no plot" % (name, src))
        return 0
    return rows, out, plt


def main():
    started = start("plot.py", __doc__)
    if isinstance(started, int):
        return started
    rows, out, plt = started

    def ordered(key):
        seen = []
        for r in rows:
            if r[key] not in seen:
                seen.append(r[key])
        return seen

    shapes, impls = ordered("shape"), ordered("impl")
    threads = sorted({int(r["threads"]) for r in rows})
    fig, axes = plt.subplots(len(threads), 1, figsize=(max(8, 1.1 * len(shapes)), 4 * len(threads)),
                             squeeze=False)
    width = 0.8 / len(impls)
    for ax, t in zip(axes[:, 0], threads):
        peak = None
        for j, impl in enumerate(impls):
            ys = []
            for s in shapes:
                r = next((r for r in rows if r["shape"] == s and r["impl"] == impl
                          and int(r["threads"]) == t), None)
                # A failed or missing measurement is drawn as an absent bar, never as zero work.
                ok = r is not None and r["check"] == "pass" and float(r["gflops"]) > 0
                ys.append(float(r["gflops"]) if ok else float("nan"))
                if ok and float(r["pct_peak"]) > 0:
                    peak = float(r["gflops"]) * 100.0 / float(r["pct_peak"])
            xs = [i + (j - (len(impls) - 1) / 2) * width for i in range(len(shapes))]
            ax.bar(xs, ys, width, label=impl)
        top = max([peak or 0] + [float(r["gflops"]) for r in rows if int(r["threads"]) == t])
        ax.set_ylim(0, 1.3 * top if top > 0 else 1)  # headroom for the legend
        if peak:
            ax.axhline(peak, color="black", linestyle="--", linewidth=1,
                       label="measured FMA peak %.0f" % peak)
        ax.set_title("SGEMM, %d thread%s" % (t, "s" if t > 1 else ""))
        ax.set_ylabel("GFLOPS (median)")
        ax.set_xticks(range(len(shapes)))
        ax.set_xticklabels(shapes, rotation=30, ha="right", fontsize=8)
        ax.legend(fontsize=7, ncol=3)
        ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    print("plot.py: wrote %s" % out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
