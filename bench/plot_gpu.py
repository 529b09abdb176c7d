#!/usr/bin/env python3
"""plot_gpu.py — plots of `gemmkit ladder` results (gpu_ladder.csv).

Writes, under --out (default: the CSV's folder):
  gpu_ladder_<size>.png     one bar per variant at that size (n, or MxNxK for a non-square
                            problem) (TFLOPS), the cuBLAS FP32 level as a dashed line; bars of
                            variants that failed their check are hatched and show no height
  gpu_tflops_vs_size.png    TFLOPS against n for every variant measured at two or more square
                            sizes
  gpu_vs_cublas.png         every gemmkit variant / cuBLAS FP32 per problem, in the order of the
                            run, with the 1.0 line (issue 18's shape table at a glance)
Only variants whose check passed are plotted with a value.
"""
import argparse
import csv
import os
import sys


def load(path):
    rows = []
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            try:
                # "n" for n x n x n, "MxNxK" otherwise; flops orders the mixed list
                dims = [int(d) for d in r["size"].split("x")]
                r["size"] = dims[0] if len(dims) == 1 else r["size"]
                r["flops"] = dims[0] ** 3 if len(dims) == 1 else dims[0] * dims[1] * dims[2]
                r["tflops"] = float(r["tflops"]) if r["tflops"] else None
            except (KeyError, ValueError, IndexError):
                continue
            rows.append(r)
    return rows


def passed(r):
    return r["tflops"] is not None and not r["check"].startswith(("FAIL", "ERROR"))


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
        print("plot_gpu.py: matplotlib is not installed; no plots", file=sys.stderr)
        return 0
    rows = load(args.csv)
    if not rows:
        print(f"plot_gpu.py: no rows in {args.csv}", file=sys.stderr)
        return 1
    out = args.out or os.path.dirname(os.path.abspath(args.csv))
    os.makedirs(out, exist_ok=True)
    device = rows[0].get("device", "GPU")
    colors = {"gemmkit": "tab:blue", "cublas": "tab:gray", "triton": "tab:orange"}
    written = []

    for size in sorted({r["size"] for r in rows}, key=lambda s: min(
            r["flops"] for r in rows if r["size"] == s)):
        rs = [r for r in rows if r["size"] == size]
        fig, ax = plt.subplots(figsize=(max(8, 0.55 * len(rs) + 2), 5))
        names = [r["variant"] for r in rs]
        vals = [r["tflops"] if passed(r) else 0.0 for r in rs]
        bars = ax.bar(range(len(rs)), vals, color=[colors.get(r["kind"], "tab:green") for r in rs])
        for b, r in zip(bars, rs):
            if not passed(r):
                b.set_hatch("//")
                ax.text(b.get_x() + b.get_width() / 2, 0, r["check"].split()[0] if r["check"] else "n/a",
                        ha="center", va="bottom", rotation=90, fontsize=7)
            else:
                ax.text(b.get_x() + b.get_width() / 2, b.get_height(), f"{r['tflops']:.1f}",
                        ha="center", va="bottom", fontsize=7)
        base = [r for r in rs if r["variant"] == "cublas_fp32" and passed(r)]
        if base:
            ax.axhline(base[0]["tflops"], ls="--", color="k", lw=1, label="cuBLAS FP32")
            ax.legend(loc="upper right")
        ax.set_ylim(0, 1.12 * max(vals + [1e-9]))
        ax.set_xticks(range(len(rs)))
        ax.set_xticklabels(names, rotation=60, ha="right", fontsize=8)
        ax.set_ylabel("TFLOPS (median run)")
        ax.set_title(f"SGEMM ladder, n = {size}, {device}")
        fig.tight_layout()
        path = os.path.join(out, f"gpu_ladder_{size}.png")
        fig.savefig(path, dpi=120)
        plt.close(fig)
        written.append(path)

    series = {}
    for r in rows:
        if passed(r) and isinstance(r["size"], int):
            series.setdefault((r["variant"], r["kind"]), []).append((r["size"], r["tflops"]))
    series = {k: sorted(v) for k, v in series.items() if len(v) >= 2}
    if series:
        fig, ax = plt.subplots(figsize=(9, 6))
        # one distinct colour per series (16+ lines outrun the default 10-colour cycle); log y so
        # the first steps (0.5 TFLOPS) and the tensor-core lines (400) are both readable
        palette = plt.get_cmap("tab20")
        for i, ((name, kind), pts) in enumerate(sorted(series.items())):
            style = "--" if kind != "gemmkit" else "-"
            ax.plot([p[0] for p in pts], [p[1] for p in pts], style, marker="o", ms=3, label=name,
                    color=palette(i % 20))
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("n (m = n = k)")
        ax.set_ylabel("TFLOPS (median run)")
        ax.set_title(f"SGEMM TFLOPS vs size, {device}")
        ax.legend(fontsize=7, ncol=2)
        ax.grid(alpha=0.3)
        fig.tight_layout()
        path = os.path.join(out, "gpu_tflops_vs_size.png")
        fig.savefig(path, dpi=120)
        plt.close(fig)
        written.append(path)
    sizes = list(dict.fromkeys(r["size"] for r in rows))
    base = {r["size"]: r["tflops"] for r in rows if r["variant"] == "cublas_fp32" and passed(r)}
    ours = sorted({r["variant"] for r in rows if r["kind"] == "gemmkit"})
    if base and ours:
        fig, ax = plt.subplots(figsize=(max(8, 0.6 * len(sizes) * len(ours) + 2), 5))
        width = 0.8 / len(ours)
        for i, name in enumerate(ours):
            val = {r["size"]: r["tflops"] / base[r["size"]] for r in rows
                   if r["variant"] == name and passed(r) and r["size"] in base}
            xs = [j + i * width for j, s in enumerate(sizes) if s in val]
            ys = [val[s] for s in sizes if s in val]
            bars = ax.bar(xs, ys, width, label=name)
            for b, y in zip(bars, ys):
                ax.text(b.get_x() + b.get_width() / 2, y, f"{y:.2f}", ha="center", va="bottom",
                        fontsize=7)
        ax.axhline(1.0, ls="--", color="k", lw=1)
        ax.set_xticks([j + 0.4 - width / 2 for j in range(len(sizes))])
        ax.set_xticklabels([str(s) for s in sizes], rotation=45, ha="right", fontsize=8)
        ax.set_ylabel("gemmkit / cuBLAS FP32 (median run)")
        ax.set_title(f"SGEMM against cuBLAS FP32 per problem, {device}")
        ax.legend(fontsize=8)
        fig.tight_layout()
        path = os.path.join(out, "gpu_vs_cublas.png")
        fig.savefig(path, dpi=120)
        plt.close(fig)
        written.append(path)
    for p in written:
        print(f"plot_gpu.py: wrote {p}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
