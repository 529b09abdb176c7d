#!/usr/bin/env python3
"""gen_docs.py — regenerate the measured tables of the docs from the committed results.

Inputs: the files under bench/results/<machine>/ (each folder's README.md names the machine on
its first line) and the kernel registry as `<build>/bin/gemmkit kernels --json` prints it.
Outputs, each the block between two markers of an otherwise hand-written file:

  docs/benchmarks.md  <!-- results:begin -->      every table, machine by machine (tc*.csv: the
                                                  mixed-precision benchmark, gemmkit bench --dtype)
  README.md           <!-- measured:begin -->     one row per claim, each naming its file
  docs/ladder.md      <!-- ladder-table:begin --> one row per registry GPU kernel, plus the peers
  docs/ladder.md      <!-- triton-table:begin --> each CUDA step beside its Triton step
                                                  (triton_ladder/registry.py; the Triton rows of
                                                  ladder.csv or triton_ladder.csv, and
                                                  triton_facts.json: what the compiler emitted)

usage: scripts/gen_docs.py [--check] [--build DIR]
  --check      write nothing; exit 1 naming every file a regeneration would change
  --build DIR  build directory whose bin/gemmkit is asked for the registry (default: build)

The output depends on those inputs only (files and rows in a fixed order, fixed number formats),
so `--check` can run as a test (tests/docs/test_docs_current.sh). What the tables mean and how the
numbers were taken: docs/benchmarks.md.
"""
import argparse
import csv
import json
import math
import os
import re
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RESULTS = "bench/results"
README_CELL_MAX = 120  # README cells stay short: the detail lives in docs/benchmarks.md

PEER_NAMES = {"openblas": "OpenBLAS", "blis": "BLIS"}
GPU_PEERS = {
    "cublas_fp32": "cuBLAS SGEMM, FP32 (the reference of the % column)",
    "cublas_tf32": "cuBLAS SGEMM with TF32 tensor-core math",
    "triton_fp32_ieee": "Triton matmul, autotuned, FP32 products (`ieee`)",
    "triton_tf32": "Triton matmul, autotuned, TF32 products",
}


class GenError(Exception):
    pass


# ---------------------------------------------------------------- formatting


def natural_key(s):
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", s)]


def shape_label(m, n, k):
    return "%d^3" % m if m == n == k else "%dx%dx%d" % (m, n, k)


def r2(x):
    return "%.2f" % x


def span(values, fmt=r2):
    lo, hi = fmt(min(values)), fmt(max(values))
    return lo if lo == hi else "%s-%s" % (lo, hi)


def duration(ns):
    """A time in ns, us or ms with three significant digits."""
    for scale, unit in ((1e6, "ms"), (1e3, "us"), (1.0, "ns")):
        if ns >= scale or unit == "ns":
            v = ns / scale
            return "%.*f %s" % (max(0, 2 - int(math.floor(math.log10(v)))) if v > 0 else 0, v, unit)


def md_table(header, rows, right=()):
    """Markdown table; columns whose index is in `right` are right-aligned."""
    out = ["| " + " | ".join(header) + " |",
           "| " + " | ".join("---:" if i in right else "---" for i in range(len(header))) + " |"]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return out


def rel(path):
    return os.path.relpath(path, ROOT)


def link(path):
    """A README link to a results file (the README sits at the repository root)."""
    return "[%s](%s)" % (os.path.relpath(path, os.path.join(ROOT, RESULTS)), rel(path))


# ---------------------------------------------------------------- inputs


def machines():
    """(folder, title, files) per machine folder, sorted by folder name."""
    base = os.path.join(ROOT, RESULTS)
    out = []
    for d in sorted(os.listdir(base)):
        p = os.path.join(base, d)
        if not os.path.isdir(p):
            continue
        readme = os.path.join(p, "README.md")
        if not os.path.isfile(readme):
            raise GenError("%s has no README.md naming the machine" % rel(p))
        with open(readme) as f:
            title = f.readline().strip().lstrip("#").strip()
        out.append((p, title, sorted(os.listdir(p), key=natural_key)))
    return out


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def read_json(path):
    if not os.path.isfile(path):
        return {}
    with open(path) as f:
        return json.load(f)


def registry(build):
    cli = os.path.join(build, "bin", "gemmkit")
    if not os.access(cli, os.X_OK):
        raise GenError("no CLI at %s: build it (make) or pass --build DIR" % cli)
    try:
        out = subprocess.run([cli, "kernels", "--json"], check=True, capture_output=True,
                             text=True, timeout=60).stdout
        reg = json.loads(out)
    except (subprocess.SubprocessError, ValueError) as e:
        raise GenError("%s kernels --json failed: %s" % (cli, e))
    if not reg.get("gpu_built") or not reg.get("gpu"):
        raise GenError("%s lists no GPU kernels (CUDA backend not built): the ladder table "
                       "and the README's GPU rows need the GPU registry" % cli)
    return reg


# ---------------------------------------------------------------- CPU sweeps


class Sweep:
    """One `gemmkit bench` CSV (+ its JSON), split by thread count."""

    def __init__(self, path):
        self.path = path
        self.rows = read_csv(path)
        self.meta = read_json(path[:-4] + ".json")
        self.threads = sorted({int(r["threads"]) for r in self.rows})
        self.impls = list(dict.fromkeys(r["impl"] for r in self.rows))
        self.kernel = {r["impl"]: r["kernel"] for r in self.rows}
        self.peers = [i for i in self.impls if i not in ("gemmkit", "baseline")]
        self.libs = list(dict.fromkeys(self.lib(i) for i in self.peers))

    @staticmethod
    def lib(impl):
        return impl[:-5] if impl.endswith("-best") else impl

    def shapes(self, t):
        return list(dict.fromkeys((int(r["m"]), int(r["n"]), int(r["k"]))
                                  for r in self.rows if int(r["threads"]) == t))

    def gflops(self, t):
        """{(shape, impl): GFLOPS} of the results that passed the float64 check."""
        return {((int(r["m"]), int(r["n"]), int(r["k"])), r["impl"]): float(r["gflops"])
                for r in self.rows if int(r["threads"]) == t and r["check"] == "pass"}

    def pct(self, t):
        return {(int(r["m"]), int(r["n"]), int(r["k"])): float(r["pct_peak"])
                for r in self.rows if int(r["threads"]) == t and r["impl"] == "gemmkit"}

    def at_best(self, t):
        """{lib: {shape: gemmkit / the faster of the library's columns}}."""
        g = self.gflops(t)
        out = {}
        for lib in self.libs:
            cols = [i for i in self.peers if self.lib(i) == lib]
            ratios = {}
            for s in self.shapes(t):
                best = max([g[(s, c)] for c in cols if (s, c) in g], default=None)
                if best and (s, "gemmkit") in g:
                    ratios[s] = g[(s, "gemmkit")] / best
            out[lib] = ratios
        return out

    def noise(self, t):
        """(a, b, [ratios]) for the first pair of peer columns that report the same kernel."""
        g = self.gflops(t)
        for i, a in enumerate(self.peers):
            for b in self.peers[i + 1:]:
                if self.kernel[a].split(" (")[0] != self.kernel[b].split(" (")[0]:
                    continue
                r = [g[(s, a)] / g[(s, b)] for s in self.shapes(t) if (s, a) in g and (s, b) in g]
                if r:
                    return a, b, r
        return None

    def peak(self, t):
        for p in self.meta.get("peak", []):
            if p.get("threads") == t:
                return p
        return None


def lib_summary(ratios):
    """(squares median, lowest square ratio, its shape, skinny ratios) of one library."""
    sq = {s: r for s, r in ratios.items() if s[0] == s[1] == s[2]}
    sk = [r for s, r in ratios.items() if not s[0] == s[1] == s[2]]
    low = min(sq, key=lambda s: (sq[s], s))
    return statistics.median(sq.values()), sq[low], low, sk


def sweep_section(sw):
    out = []
    meta = sw.meta
    for t in sw.threads:
        out.append("#### CPU, %d thread%s: `%s`" % (t, "" if t == 1 else "s", rel(sw.path)))
        out.append("")
        facts = []
        if meta.get("date"):
            facts.append("written %s" % meta["date"])
        p = sw.peak(t)
        if p:
            facts.append("measured %s FMA peak %.1f GFLOPS" % (p["isa"], p["gflops"]))
        rounds = meta.get("method", {}).get("rounds")
        if rounds:
            facts.append("%d interleaved rounds" % rounds)
        la = meta.get("load_average_1min")
        if la:
            facts.append("load %.2f at start, %.2f at end" % (la["start"], la["end"]))
        facts.append("kernels: " + ", ".join("%s `%s`" % (i, sw.kernel[i]) for i in sw.impls))
        text = "; ".join(facts) + "."
        out.append(text[0].upper() + text[1:])
        out.append("")
        g, pct = sw.gflops(t), sw.pct(t)
        header = ["shape", "gemmkit GFLOPS", "% peak"]
        for i in sw.peers:
            header += [i, "gk/x"]
        rows = []
        for s in sw.shapes(t):
            gk = g.get((s, "gemmkit"))
            row = [shape_label(*s), "%.1f" % gk if gk else "FAIL", "%.1f" % pct[s] if s in pct else "-"]
            for i in sw.peers:
                v = g.get((s, i))
                row += ["%.1f" % v if v else "-", r2(gk / v) if v and gk else "-"]
            rows.append(row)
        out += md_table(header, rows, right=range(1, len(header)))
        out.append("")
        lines = []
        for lib, ratios in sw.at_best(t).items():
            med, low, lows, sk = lib_summary(ratios)
            lines.append("- against %s at its best: squares median %s, lowest %s (%s); skinny %s"
                         % (PEER_NAMES.get(lib, lib), r2(med), r2(low), shape_label(*lows), span(sk)))
        big = [v for s, v in pct.items() if s[0] == s[1] == s[2] and s[0] >= 256]
        if big:
            lines.append("- gemmkit at %s %% of the measured peak on the squares from 256^3 up"
                         % span(big, lambda x: "%.0f" % x))
        nz = sw.noise(t)
        if nz:
            a, b, r = nz
            lines.append("- noise gauge (%s / %s, the same kernel): %s, median %s"
                         % (a, b, span(r), r2(statistics.median(r))))
        out += lines
        out.append("")
    return out


def sweep_readme_rows(title, sw):
    rows = []
    for t in sw.threads:
        ab = sw.at_best(t)
        libs = [PEER_NAMES.get(l, l) for l in ab]
        sums = [lib_summary(r) for r in ab.values()]
        cell = "squares median %s, lowest %s; skinny %s" % (
            " / ".join(r2(s[0]) for s in sums), " / ".join(r2(s[1]) for s in sums),
            " / ".join(span(s[3]) for s in sums))
        nz = sw.noise(t)
        if nz:
            cell += "; noise gauge %s" % span(nz[2])
        run = re.search(r"_(run\d+)$", os.path.basename(sw.path)[:-4])
        what = "CPU, %d thread%s%s: gemmkit over %s at %s best" % (
            t, "" if t == 1 else "s", " (%s)" % run.group(1).replace("run", "run ") if run else "",
            " / ".join(libs), "its" if len(libs) == 1 else "their")
        rows.append([title, what, cell, link(sw.path)])
    return rows


# ---------------------------------------------------------------- per-call tables (gk-call-ab)


CALL_ROW = re.compile(r"^(\d+)x(\d+)x(\d+)\S*\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s*$")
CALL_KINDS = {"calls": "tiny shapes", "gemv": "GEMV-like shapes (one or two columns or rows of C)"}


def lib_label(path):
    p = path.lower()
    if "gemmkit" in p:
        return "gemmkit"
    if "openblas" in p:
        return "OpenBLAS"
    return os.path.basename(path)


class Calls:
    """A `gk-call-ab` output: one or more runs of 'A = lib', 'B = lib' and a table of ns per call."""

    def __init__(self, path):
        self.path = path
        self.runs = []  # [{shape: (gemmkit ns, peer ns, gemmkit / peer)}]
        self.peer = None
        text = open(path).read()
        core = re.search(r"OPENBLAS_CORETYPE=(\w+)", text)
        self.coretype = core.group(1) if core else None
        a = b = None
        for line in text.splitlines():
            if line.startswith("A = "):
                a, b = lib_label(line[4:].strip()), None
                self.runs.append({})
            elif line.startswith("B = "):
                b = lib_label(line[4:].strip())
                if "gemmkit" not in (a, b):
                    raise GenError("%s: neither library is gemmkit" % rel(path))
                self.peer = b if a == "gemmkit" else a
            else:
                m = CALL_ROW.match(line)
                if m and self.runs and b:
                    s = tuple(int(x) for x in m.group(1, 2, 3))
                    am, bm = float(m.group(4)), float(m.group(6))
                    gk, peer = (bm, am) if b == "gemmkit" else (am, bm)
                    self.runs[-1][s] = (gk, peer, gk / peer)
        if not self.runs or not self.runs[0]:
            raise GenError("%s: no gk-call-ab table found" % rel(path))

    def peer_name(self):
        return self.peer + (" %s" % self.coretype if self.coretype else "")

    def ratios(self):
        return [v[2] for run in self.runs for v in run.values()]


def calls_section(kind, c):
    n = len(c.runs)
    title = CALL_KINDS[kind]
    out = ["#### %s, 1 thread, time per call: `%s`" % (title[0].upper() + title[1:], rel(c.path)), ""]
    out.append("Median ns per call over 21 alternated rounds of loops of calls, %s and gemmkit "
               "loaded into one process%s; below 1, gemmkit takes less time."
               % (c.peer_name(), "; %d runs, in order" % n if n > 1 else ""))
    out.append("")
    rows = []
    for s in c.runs[0]:
        v = [run[s] for run in c.runs if s in run]
        rows.append([shape_label(*s), ", ".join(duration(x[0]) for x in v),
                     ", ".join(duration(x[1]) for x in v), ", ".join(r2(x[2]) for x in v)])
    out += md_table(["shape", "gemmkit", c.peer_name(), "gemmkit / %s" % c.peer], rows,
                    right=(1, 2, 3))
    out.append("")
    return out


def calls_readme_row(title, kind, c):
    r = c.ratios()
    cell = "gemmkit takes %s of %s's time (median %s)" % (span(r), c.peer, r2(statistics.median(r)))
    what = "%s, 1 thread, time per call against %s" % (CALL_KINDS[kind], c.peer_name())
    if len(c.runs) > 1:
        what += ", %d runs" % len(c.runs)
    return [title, what, cell, link(c.path)]


# ---------------------------------------------------------------- GPU ladder


class Ladder:
    """A `gemmkit ladder` CSV: {variant: {size: row}} in the file's order."""

    def __init__(self, path):
        self.path = path
        self.meta = read_json(path[:-4] + ".json")
        self.by = {}
        for r in read_csv(path):
            self.by.setdefault(r["variant"], {})[int(r["size"])] = r
        self.sizes = sorted({s for v in self.by.values() for s in v})
        # bench/triton_peer.py --csv files have no kind column: all their rows are Triton steps
        self.kind = {v: next(iter(rs.values())).get("kind", "triton") for v, rs in self.by.items()}

    def tflops(self, v, s):
        r = self.by.get(v, {}).get(s)
        return float(r["tflops"]) if r and r["check"].startswith("ok") else None

    def pct(self, v, s):
        r = self.by.get(v, {}).get(s)
        return float(r["pct_cublas"]) if r and r["check"].startswith("ok") else None


def gpu_kernels(reg, ladder, fp32):
    """Registry GPU kernels that were measured and are (not) FP32-exact."""
    ks = [k for k in reg["gpu"] if k["name"] in ladder.by]
    return [k for k in ks if (not k["tensor_cores"] and not k["input_rounding"]) == fp32]


def fastest(ladder, kernels):
    return max(kernels, key=lambda k: (sum(ladder.tflops(k["name"], s) or 0 for s in ladder.sizes),
                                       k["name"]))


def sweep_gpu_section(sw):
    out = ["#### GPU size sweep: `%s`" % rel(sw.path), ""]
    when = sw.meta.get("time")
    out.append("%% of cuBLAS FP32 in the same run, every size square%s; the first row is cuBLAS "
               "FP32's own TFLOPS." % (", written %s" % when if when else ""))
    out.append("")
    rows = [["cuBLAS FP32 TFLOPS"] + ["%.2f" % (sw.tflops("cublas_fp32", s) or 0) for s in sw.sizes]]
    for v in sw.by:
        if v == "cublas_fp32":
            continue
        rows.append([v] + ["%.1f" % p if p is not None else "-" for p in (sw.pct(v, s) for s in sw.sizes)])
    out += md_table(["variant"] + [str(s) for s in sw.sizes], rows, right=range(1, len(sw.sizes) + 1))
    out.append("")
    return out


def ladder_gpu_section(ld):
    out = ["#### GPU ladder: `%s`" % rel(ld.path), ""]
    out.append("TFLOPS and %% of cuBLAS FP32 in the same run%s. Each step's technique: "
               "docs/ladder.md." % (", written %s" % ld.meta["time"] if ld.meta.get("time") else ""))
    out.append("")
    header = ["variant"]
    for s in ld.sizes:
        header += ["TFLOPS at %d" % s, "% cuBLAS"]
    rows = []
    for v in ld.by:
        row = [v]
        for s in ld.sizes:
            t, p = ld.tflops(v, s), ld.pct(v, s)
            row += ["%.2f" % t if t is not None else "-", "%.1f" % p if p is not None else "-"]
        rows.append(row)
    out += md_table(header, rows, right=range(1, len(header)))
    out.append("")
    return out


def ladder_readme_rows(title, ld, sweep, reg):
    rows = []
    src = link(ld.path)
    fp32 = gpu_kernels(reg, ld, True)
    best = fastest(ld, fp32)
    default = next((k for k in reg["gpu"] if k.get("default")), None)
    s0 = ld.sizes[0]
    first = reg["gpu"][0]["name"]
    if ld.tflops(first, s0) and ld.tflops("cublas_fp32", s0):
        rows.append([title, "ladder at %d: first step -> fastest FP32 step" % s0,
                     "%s %.2f -> %s %.2f TFLOPS (cuBLAS FP32 %.2f)" % (
                         first, ld.tflops(first, s0), best["name"], ld.tflops(best["name"], s0),
                         ld.tflops("cublas_fp32", s0)), src])
    tag = " (default)" if default and default["name"] == best["name"] else ""
    rows.append([title, "fastest FP32 step vs cuBLAS FP32, same run",
                 "%s%s: %s" % (best["name"], tag, ", ".join(
                     "%.1f %% at %d" % (ld.pct(best["name"], s), s) for s in ld.sizes)), src])
    tc = gpu_kernels(reg, ld, False)
    if tc:
        k = fastest(ld, tc)
        cell = "%s: %.0f %% of cuBLAS FP32" % (k["name"], ld.pct(k["name"], s0))
        if ld.tflops("cublas_tf32", s0):
            cell += ", %.0f %% of cuBLAS TF32" % (100 * ld.tflops(k["name"], s0) / ld.tflops("cublas_tf32", s0))
        rows.append([title, "fastest reduced-precision step at %d" % s0, cell + " at %d" % s0, src])
    if sweep and default and default["name"] in sweep.by:
        p = {s: sweep.pct(default["name"], s) for s in sweep.sizes if sweep.pct(default["name"], s) is not None}
        low = min(p, key=lambda s: (p[s], s))
        rows.append([title, "default kernel over sizes %d-%d vs cuBLAS FP32" % (min(p), max(p)),
                     "%s: %s %% (lowest at %d)" % (default["name"], span(p.values(), lambda x: "%.1f" % x), low),
                     link(sweep.path)])
    return rows


def ladder_doc_table(ld, reg):
    header = ["step", "technique", "tensor cores", "input rounding"]
    for s in ld.sizes:
        header += ["TFLOPS at %d" % s, "% of cuBLAS FP32"]

    def cells(v):
        out = []
        for s in ld.sizes:
            t, p = ld.tflops(v, s), ld.pct(v, s)
            out += ["%.2f" % t if t is not None else "not measured", "%.1f" % p if p is not None else "-"]
        return out

    rows = []
    for v in ld.by:
        if ld.kind[v] != "gemmkit" and not (ld.kind[v] == "triton" and v in triton_step_variants()):
            rows.append([v, GPU_PEERS.get(v, ld.kind[v]), "-", "-"] + cells(v))
    for k in reg["gpu"]:
        ir = k["input_rounding"]
        rnd = "none" if not ir else ("2^%d" % round(math.log2(ir)) if math.log2(ir).is_integer() else "%g" % ir)
        name = "`%s`%s" % (k["name"], " (default)" if k.get("default") else "")
        rows.append([name, k["technique"], "yes" if k["tensor_cores"] else "no", rnd] + cells(k["name"]))
    out = md_table(header, rows, right=range(4, len(header)))
    when = ld.meta.get("time")
    dev = ld.meta.get("device", {}).get("name")
    out += ["", "Generated by `scripts/gen_docs.py` from `%s`%s%s and the kernel registry "
            "(`gemmkit kernels --json`); the run's machine, commit and command are in `%s`."
            % (rel(ld.path), " (%s" % dev if dev else "", ", %s)" % when if when else (")" if dev else ""),
               rel(os.path.join(os.path.dirname(ld.path), "README.md")))]
    return out


# ---------------------------------------------------------------- the ladder in Triton


def triton_registry():
    """triton_ladder/registry.py (plain Python: needs neither torch nor triton)."""
    import importlib.util
    spec = importlib.util.spec_from_file_location(
        "gk_triton_registry", os.path.join(ROOT, "triton_ladder", "registry.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def triton_step_variants():
    """The ladder.csv variant names of the Triton steps (gemmkit ladder prefixes "triton_")."""
    return {"triton_" + s.name for s in triton_registry().STEPS}


def code_lines(path):
    """Lines of code of a step's file: not blank, not a comment, not a docstring."""
    with open(path) as f:
        text = f.read()
    skip = set()
    if path.endswith(".py"):
        import ast
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, (ast.Module, ast.FunctionDef, ast.ClassDef)) and \
                    ast.get_docstring(node) is not None:
                skip.update(range(node.body[0].lineno, node.body[0].end_lineno + 1))
        comment = "#"
    else:
        text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
        comment = "//"
    return sum(1 for i, line in enumerate(text.splitlines(), 1)
               if i not in skip and line.strip() and not line.strip().startswith(comment))


def triton_did(f):
    """One cell from a step's entry of triton_facts.json (bench/triton_peer.py --facts)."""
    if not f:
        return "not measured yet"
    if "error" in f:
        return "facts failed: %s" % f["error"].replace("|", "/")[:80]
    p, g = f["ptx"], f["ttgir"]
    math_ = ("wgmma (tensor cores)" if p.get("wgmma") else "mma.sync (tensor cores)"
             if p.get("mma.sync") else "FFMA" if p.get("fma.f32") else "?")
    out = ["%d warps" % f["num_warps"], math_]
    acc = f.get("accumulator_layout") or ""
    m = re.search(r"sizePerThread = \[(\d+), (\d+)\]", acc)
    if m:
        out.append("%sx%s outputs per thread per layout repeat" % m.groups())
    if p.get("cp.async") or p.get("cp.async.bulk (TMA)"):
        wide = p.get("cp.async 16-byte", 0)
        out.append("cp.async into shared memory (%d of %d copies 16-byte), %s stages"
                   % (wide, p["cp.async"], f.get("num_stages")))
    elif g.get("local_alloc"):
        out.append("tiles staged through registers into shared memory")
    else:
        out.append("no shared memory")
    if p.get("ld.global"):
        out.append("%d of %d global loads 16-byte" % (p.get("ld.global.v4", 0), p["ld.global"]))
    if p.get("ldmatrix"):
        out.append("ldmatrix")
    out.append("%.1f KiB shared" % (f["shared_bytes"] / 1024.0))
    if f.get("registers") is not None:
        out.append("%d registers%s" % (f["registers"],
                                       ", %d spilled" % f["spills"] if f.get("spills") else ""))
    return "; ".join(out)


def triton_doc_table(ld, folder, files):
    """Each CUDA step beside its Triton step: lines of code, TFLOPS (CUDA, Triton, cuBLAS) and
    what the Triton compiler emitted."""
    treg = triton_registry()
    facts_path = os.path.join(folder, "triton_facts.json")
    facts = read_json(facts_path).get("steps", {})
    alone = Ladder(os.path.join(folder, "triton_ladder.csv")) if "triton_ladder.csv" in files \
        else None  # a separate bench/triton_peer.py --csv run, when the ladder's has no rows

    def triton_tf(name, size):
        """The step's TFLOPS as a cell: a number, "failed" (no passing check) or not measured."""
        src, v = (ld, "triton_" + name) if "triton_" + name in ld.by else (alone, name)
        if not src or size not in src.by.get(v, {}):
            return "not measured yet"
        t = src.tflops(v, size)
        return "%.2f" % t if t is not None else "failed: %s" % src.by[v][size]["check"][:40]

    tc = {}
    if "tc.csv" in files:
        for r in read_csv(os.path.join(folder, "tc.csv")):
            if r["m"] == r["n"] == r["k"] and r["gk_check"] == "ok":
                tc.setdefault((r["dtype"], int(r["m"])), r)

    def num(x):
        return "%.2f" % x if x is not None else "-"

    def fnum(x):
        return "%.2f" % float(x) if x else "-"

    sizes = [s for s in (4096, 8192) if s in ld.sizes] or ld.sizes[:2]
    header = ["CUDA step", "Triton step", "lines CUDA / Triton"]
    header += ["TFLOPS at %d: CUDA / Triton / cuBLAS" % s for s in sizes]
    header += ["what Triton did (from its PTX and TTGIR)"]
    rows = []
    for s in treg.STEPS:
        if s.cuda.startswith("gemm_ex:"):
            dt = s.cuda.split(":", 1)[1]
            cuda_name, cuda_lines = "gk_cuda_gemm_ex %s" % dt, "-"
            perf = []
            for z in sizes:
                r = tc.get((dt, z))
                perf.append("%s / %s / %s" % (fnum(r and r["gk_tflops"]), triton_tf(s.name, z),
                                              fnum(r and r["peer_tflops"])))
        else:
            cuda_name = "`%s`" % s.cuda
            cuda_lines = str(code_lines(os.path.join(ROOT, "src/cuda/ladder", s.cuda + ".cu")))
            base = "cublas_tf32" if s.u_in else "cublas_fp32"
            perf = ["%s / %s / %s" % (num(ld.tflops(s.cuda, z)),
                                      "-" if s.why_not else triton_tf(s.name, z),
                                      num(ld.tflops(base, z))) for z in sizes]
        if s.why_not:
            rows.append([cuda_name, "not expressible", "%s / -" % cuda_lines] + perf +
                        ["not expressible: %s" % s.why_not])
        else:
            rows.append([cuda_name, "`%s.py`" % s.name,
                         "%s / %d" % (cuda_lines, code_lines(s.file))] + perf +
                        [triton_did(facts.get(s.name))])
    out = md_table(header, rows)
    src = [rel(ld.path)] + ([rel(alone.path)] if alone else [])
    meta = read_json(facts_path)
    out += ["", "Generated by `scripts/gen_docs.py` from `triton_ladder/registry.py`, the TFLOPS of "
            "%s%s and %s. Lines: not blank, not "
            "comments or docstrings, of the step's own file (CUDA steps 10-15 and 18-20 and "
            "Triton steps 4-18 build on shared code: `src/cuda/gemm/` and `src/cuda/hopper/`, "
            "Triton step 3's kernel)."
            % (", ".join("`%s`" % p for p in src),
               ", `%s` for gk_cuda_gemm_ex (its C is in the operand format)"
               % rel(os.path.join(folder, "tc.csv")) if tc else "",
               "`%s` (Triton %s at %s, %s)" % (rel(facts_path), meta.get("triton"),
                                                 meta.get("size"), meta.get("device"))
               if meta else "no `%s` yet (compiler facts: not measured yet)" % rel(facts_path))]
    return out


# ---------------------------------------------------------------- mixed precision (tc*.csv)


# from this size up every implementation runs at full speed; below, tile quantization weighs more
TC_BIG = 4096

# Issue 17's targets for the block-scaled GEMM, gemmkit over plain per-tensor FP8 cuBLASLt in the
# same run from TC_BIG up: (dtype, peer) -> the lowest ratio that meets it.
TC_TARGETS = {("e4m3-b128", "cublaslt_fp8"): 1.00, ("mxfp8", "cublaslt_fp8"): 0.85}


class Tc:
    """A `gemmkit bench --dtype` CSV (gpu_tc.csv, committed as tc*.csv): one row per size, dtype
    and peer, gemmkit and the peer side by side (a dtype with two peers, as e4m3-b128 has, gets
    two rows per size with the same gemmkit side)."""

    def __init__(self, path):
        self.path = path
        self.meta = read_json(path[:-4] + ".json")
        self.rows = read_csv(path)

    @staticmethod
    def key(r):
        return (r["dtype"], r["c_type"], r["layout"], r["trans"], r["peer"])

    def groups(self):
        """{key: [rows]} in the file's order."""
        out = {}
        for r in self.rows:
            out.setdefault(self.key(r), []).append(r)
        return out

    @staticmethod
    def value(r, side, col):
        return float(r[side + col]) if r[side + "check"] == "ok" and r[side + col] else None

    @staticmethod
    def ratio(r):
        gk, peer = Tc.value(r, "gk_", "tflops"), Tc.value(r, "peer_", "tflops")
        return gk / peer if gk and peer else None

    @staticmethod
    def size(r):
        m, n, k = int(r["m"]), int(r["n"]), int(r["k"])
        return m if m == n == k else round((m * n * k) ** (1 / 3))

    def summary(self, rows):
        """(median ratio and lowest (ratio, size) at sizes >= TC_BIG, the same below), None where
        no ratio was measured."""
        out = []
        for big in (True, False):
            rs = [(self.ratio(r), self.size(r)) for r in rows
                  if self.ratio(r) and (self.size(r) >= TC_BIG) == big]
            out.append((statistics.median(x for x, _ in rs), min(rs)) if rs else None)
        return out


def tc_label(key):
    dtype, ctype, layout, trans, _ = key
    return "%s -> %s, %s-major %s" % (dtype, ctype, layout, trans)


def tc_target(key, big):
    """(target, "met" or "not met") for a group with a target in TC_TARGETS and a ratio from TC_BIG
    up (big: Tc.summary's first item), judged by its lowest ratio; else None."""
    target = TC_TARGETS.get((key[0], key[4]))
    if target is None or not big:
        return None
    return r2(target), "met" if big[1][0] >= target else "not met"


def tc_section(tc):
    out = ["#### Mixed precision against cuBLASLt: `%s`" % rel(tc.path), ""]
    when = tc.meta.get("time")
    scaled = any(res.get("scaling", "none") != "none" for res in tc.meta.get("results", []))
    out.append("gemmkit (`gk_cuda_gemm_ex`; `gk_cuda_sgemm` for f32 and 3xtf32%s) and cuBLASLt in "
               "the same run%s: TFLOPS (median), %% of the datasheet peak at the measured SM "
               "clock, gk/x = gemmkit over the peer, and the largest error of each on sampled "
               "elements in units of the element's scale (docs/benchmarks.md, \"Mixed "
               "precision\")."
               % ("; `gk_cuda_gemm_scaled` for the block-scaled types, whose peers are cuBLASLt's "
                  "per-tensor FP8 on the same codes (cublaslt_fp8) and, for e4m3-b128, cuBLASLt's "
                  "own 1x128 / 128x128 block scaling (cublaslt_fp8_b128)" if scaled else "",
                  ", written %s" % when if when else ""))
    out.append("")
    header = ["dtype", "size", "gemmkit TFLOPS", "% peak", "peer", "peer TFLOPS", "% peak", "gk/x",
              "SM MHz", "W", "gemmkit err", "peer err"]
    rows = []
    for key, rs in tc.groups().items():
        for r in rs:
            gk, peer = Tc.value(r, "gk_", "tflops"), Tc.value(r, "peer_", "tflops")
            cell = lambda side, col, f: (f % Tc.value(r, side, col)  # noqa: E731
                                         if Tc.value(r, side, col) is not None else "-")
            size = shape_label(int(r["m"]), int(r["n"]), int(r["k"]))
            rows.append([tc_label(key), size,
                         "%.1f" % gk if gk else r["gk_check"].split(" ")[0] or "-",
                         cell("gk_", "pct_peak", "%.1f"), r["peer"] or "-",
                         "%.1f" % peer if peer else r["peer_check"].split(" ")[0] or "-",
                         cell("peer_", "pct_peak", "%.1f"),
                         r2(Tc.ratio(r)) if Tc.ratio(r) else "-",
                         cell("gk_", "sm_mhz", "%.0f"), cell("gk_", "power_w", "%.0f"),
                         cell("gk_", "err", "%.2g"), cell("peer_", "err", "%.2g")])
    out += md_table(header, rows, right=(2, 3, 5, 6, 7, 8, 9, 10, 11))
    out.append("")
    for key, rs in tc.groups().items():
        parts = []
        for (summ, what) in zip(tc.summary(rs), ("%d and up" % TC_BIG, "below %d" % TC_BIG)):
            if summ:
                parts.append("%s: median %s, lowest %s at %d" % (what, r2(summ[0]), r2(summ[1][0]),
                                                                  summ[1][1]))
        target = tc_target(key, tc.summary(rs)[0])
        if target:
            parts.append("issue 17 target >= %s from %d up: %s" % (target[0], TC_BIG, target[1]))
        if parts:
            out.append("- %s, gemmkit over %s: %s" % (tc_label(key), rs[0]["peer"],
                                                      "; ".join(parts)))
    out.append("")
    return out


def tc_readme_rows(title, tc):
    rows = []
    for key, rs in tc.groups().items():
        big = tc.summary(rs)[0]
        if big:
            what = "%s vs %s, same run, sizes %d and up" % (key[0], rs[0]["peer"], TC_BIG)
            target = tc_target(key, big)
            rows.append([title, what,
                         "gemmkit / peer: median %s, lowest %s at %d%s"
                         % (r2(big[0]), r2(big[1][0]), big[1][1],
                            "; target >= %s: %s" % target if target else ""),
                         link(tc.path)])
    return rows


class Shapes:
    """A `gemmkit bench --dtype D --shapes llm` CSV (committed as shapes_*.csv): gemmkit and
    cuBLASLt per cell of the model grid, summarised per M class (bench/shapes_summary.py prints the
    same classes with the bandwidth at small M)."""

    CLASSES = [("M = 1", 1, 1), ("16-64", 16, 64), ("128-256", 128, 256), ("512-1024", 512, 1024),
               ("2048-16384", 2048, 16384)]

    def __init__(self, path):
        self.path = path
        self.name = os.path.basename(path)[len("shapes_"):-len(".csv")]
        self.cells = []  # (m, n, k, ratio), squares apart
        self.squares = []
        for r in read_csv(path):
            ratio = Tc.ratio(r)
            if ratio is None:
                continue
            m, n, k = int(r["m"]), int(r["n"]), int(r["k"])
            (self.squares if m == n == k else self.cells).append((m, n, k, ratio))

    def classes(self):
        """[(label, median, (lowest, shape))] per M class with cells."""
        out = []
        for label, lo, hi in self.CLASSES:
            cs = [c for c in self.cells if lo <= c[0] <= hi]
            if cs:
                low = min(cs, key=lambda c: c[3])
                out.append((label, statistics.median(c[3] for c in cs),
                            (low[3], shape_label(*low[:3]))))
        return out


def shapes_section(sh):
    out = ["#### Model shapes (%s) against cuBLASLt: `%s`" % (sh.name, rel(sh.path)), "",
           "C = A W^T, M rows against the (N, K) of linear layers (docs/benchmarks.md, \"Shapes of "
           "models\"); gemmkit over cuBLASLt per M class:", ""]
    rows = [[label, "%d" % len([c for c in sh.cells if lo <= c[0] <= hi]), r2(med), r2(low[0]),
             low[1]] for (label, med, low), (_, lo, hi) in zip(sh.classes(), Shapes.CLASSES)]
    out += md_table(["M", "cells", "median", "lowest", "lowest at"], rows, right=(1, 2, 3))
    if sh.squares:
        first = {}
        for m, _, _, x in sh.squares:  # 4096^3 is a cell of the grid and a square: the first
            first.setdefault(m, x)
        out += ["", "Squares: " + ", ".join("%d: %s" % (m, r2(x)) for m, x in sorted(first.items()))]
    out.append("")
    return out


def shapes_readme_row(title, sh):
    cls = sh.classes()
    allr = [c[3] for c in sh.cells]
    return [title, "%s vs cuBLASLt, model shapes M = 1-16384" % sh.name,
            "median %s; per M class %s" % (r2(statistics.median(allr)) if allr else "-",
                                          " / ".join(r2(med) for _, med, _ in cls)),
            link(sh.path)]


# ---------------------------------------------------------------- assembling


def generate(reg):
    bench, readme = [], []
    ladder_doc = triton_doc = None
    for folder, title, files in machines():
        bench += ["### %s: `%s/`" % (title, rel(folder)), ""]
        tables_at = len(bench)
        ld = Ladder(os.path.join(folder, "ladder.csv")) if "ladder.csv" in files else None
        sw = Ladder(os.path.join(folder, "sweep.csv")) if "sweep.csv" in files else None
        if ld:
            bench += ladder_gpu_section(ld)
            readme += ladder_readme_rows(title, ld, sw, reg)
            if ladder_doc is None:
                ladder_doc = ladder_doc_table(ld, reg)
                triton_doc = triton_doc_table(ld, folder, files)
        if sw:
            bench += sweep_gpu_section(sw)
        for f in files:
            p = os.path.join(folder, f)
            if f.startswith("cpu_sweep") and f.endswith(".csv"):
                s = Sweep(p)
                bench += sweep_section(s)
                readme += sweep_readme_rows(title, s)
        for f in files:
            if re.match(r"tc.*\.csv$", f):
                t = Tc(os.path.join(folder, f))
                bench += tc_section(t)
                readme += tc_readme_rows(title, t)
        for f in files:
            if re.match(r"shapes_.*\.csv$", f):
                sh = Shapes(os.path.join(folder, f))
                bench += shapes_section(sh)
                readme.append(shapes_readme_row(title, sh))
        for f in files:
            m = re.match(r"(calls|gemv)_vs_.*\.txt$", f)
            if m:
                c = Calls(os.path.join(folder, f))
                bench += calls_section(m.group(1), c)
                readme.append(calls_readme_row(title, m.group(1), c))
        if len(bench) == tables_at:  # results of kinds without a generated table
            bench += ["No generated tables: `%s` names its files and figures."
                      % rel(os.path.join(folder, "README.md")), ""]
    for row in readme:
        for cell in row:
            if len(cell) >= README_CELL_MAX:
                raise GenError("README cell of %d characters (limit %d): %s"
                               % (len(cell), README_CELL_MAX, cell))
    readme_block = md_table(["where", "what", "result", "source"], readme)
    return {
        "docs/benchmarks.md": ("results", bench[:-1] if bench and bench[-1] == "" else bench),
        "README.md": ("measured", readme_block),
        "docs/ladder.md": [("ladder-table", ladder_doc or ["(no ladder.csv under %s)" % RESULTS]),
                           ("triton-table", triton_doc or ["(no ladder.csv under %s)" % RESULTS])],
    }


def splice_text(text, marker, lines, path):
    """`text` (of the file at `path`) with the block between its markers replaced by `lines`."""
    begin, end = "<!-- %s:begin -->" % marker, "<!-- %s:end -->" % marker
    i, j = text.find(begin), text.find(end)
    if i < 0 or j < i:
        raise GenError("%s lacks the markers %s ... %s" % (rel(path), begin, end))
    return text[:i + len(begin)] + "\n" + "\n".join(lines) + "\n" + text[j:]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--check", action="store_true", help="exit 1 if a file would change")
    ap.add_argument("--build", default=os.path.join(ROOT, "build"), help="build directory")
    a = ap.parse_args()
    try:
        blocks = generate(registry(a.build))
    except (GenError, OSError, KeyError, ValueError) as e:
        print("gen_docs.py: %s" % e, file=sys.stderr)
        return 2
    stale, failed = [], 0
    for name in sorted(blocks):  # one file's problem does not stop the others
        parts = blocks[name] if isinstance(blocks[name], list) else [blocks[name]]
        path = os.path.join(ROOT, name)
        try:
            with open(path) as f:
                old = new = f.read()
            for marker, lines in parts:
                new = splice_text(new, marker, lines, path)
            if new != old and not a.check:
                with open(path, "w") as f:
                    f.write(new)
                print("gen_docs.py: wrote %s" % name)
        except (GenError, OSError) as e:
            print("gen_docs.py: %s" % e, file=sys.stderr)
            failed = 1
            continue
        if new != old and a.check:
            stale.append(name)
    for name in stale:
        print("gen_docs.py: %s is stale: run scripts/gen_docs.py --build %s" % (name, a.build))
    return 2 if failed else 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
