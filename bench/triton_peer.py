#!/usr/bin/env python3
"""triton_peer.py — the Triton ladder (triton_ladder/) as a peer of `gemmkit ladder`.

Modes (all need torch, triton and a CUDA GPU, exit status 2 when one is missing, which the ladder
reports and carries on; under TRITON_INTERPRET=1 the default mode runs on the CPU, with wall-clock
times that mean nothing, so that the runner itself can be tested without a GPU):

  --sizes 4096,8192 [--csv FILE]   check every Triton step on n x n x n problems (row-major,
                                   uniform [-1, 1) operands) against a float64 reference with the
                                   gemmkit rule, then time it with the CUDA ladder's method
                                   (triton_ladder/measure.py: L2 flushed, median); CSV rows
                                   "size,variant,ms,tflops,check", which `gemmkit ladder --triton`
                                   merges (variant = the Triton step's name)
  --facts FILE [--facts-size N]    compile and run every step once at N (default 4096), and write
                                   what Triton emitted (shared memory, registers, warps, stages,
                                   instruction counts in the PTX, layouts in the TTGIR) as JSON
  --pair LADDER_CSV                print the CUDA ladder's gpu_ladder.csv with each Triton step in
                                   the row of its CUDA step (what `gemmkit ladder --triton` shows)
  --steps LIST                     only these steps (names or number prefixes, comma separated)

Exit status 1 if a step fails its check (or, with --facts, cannot be compiled and run). With
GK_TRITON_ONE_CONFIG=1 in the environment (the tests) autotuned steps run their first
configuration only (triton_ladder/11_autotuned.py): times then are not the steps' own.
"""
import argparse
import csv
import json
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
from triton_ladder import registry  # noqa: E402  (no torch/triton needed: --pair works without)


def selected(steps, spec):
    if not spec:
        return steps
    want = [w for w in spec.split(",") if w]
    return [s for s in steps if any(s.name == w or s.name.startswith(w) for w in want)]


def pair(ladder_csv):
    """Prints one line per Triton registry step and size: the CUDA step it sits beside and both
    TFLOPS from the ladder's CSV (a CUDA step outside the ladder, gk_cuda_gemm_ex, shows "-")."""
    with open(ladder_csv) as f:
        rows = list(csv.DictReader(f))
    got = {(int(r["size"]), r["variant"]): r for r in rows}
    fmt = "%6s  %-24s %8s  %-22s %8s  %s"
    print(fmt % ("size", "CUDA step", "TFLOPS", "Triton step", "TFLOPS", "Triton check"))
    for size in sorted({int(r["size"]) for r in rows}):
        for s in registry.STEPS:
            c, t = got.get((size, s.cuda)), got.get((size, "triton_" + s.name))
            note = "not expressible in Triton (triton_ladder/registry.py says why)" \
                if s.why_not else t["check"] if t else "not measured"
            print(fmt % (size, s.cuda, c["tflops"] if c else "-", s.name,
                         t["tflops"] if t and t["tflops"] else "-", note))
    return 0


def main():
    ap = argparse.ArgumentParser(description="the Triton ladder: check, time, inspect")
    ap.add_argument("--sizes", default="4096,8192")
    ap.add_argument("--csv", default=None, help="write rows here instead of stdout")
    ap.add_argument("--steps", default=None)
    ap.add_argument("--reps", type=int, default=30)
    ap.add_argument("--budget", type=float, default=1.5)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--facts", default=None, metavar="FILE")
    ap.add_argument("--facts-size", type=int, default=4096)
    ap.add_argument("--pair", default=None, metavar="LADDER_CSV")
    args = ap.parse_args()
    if args.pair:
        return pair(args.pair)
    try:
        import torch
        import triton
        from triton_ladder import measure
    except ImportError as e:
        print(f"triton_peer.py: {e}; no Triton peer", file=sys.stderr)
        return 2
    dev = measure.device()
    if dev != "cuda" and (args.facts or not measure.interpreting()):
        print("triton_peer.py: no CUDA device", file=sys.stderr)
        return 2
    steps = selected(registry.expressed(), args.steps)
    if args.facts:
        return write_facts(steps, args.facts, args.facts_size, torch, triton, measure)
    timer = measure.Timer(args.reps, args.budget, args.rounds)
    rows, failed = [], False
    for n in [int(s) for s in args.sizes.split(",") if s]:
        a, b = measure.operands(n, n, n, n, dev)
        refs, fns, status = {}, {}, {}
        for s in steps:
            try:
                mod = s.load()
                sa, sb = measure.as_step_input(mod, a, b)
                key = str(sa.dtype)
                if key not in refs:
                    refs[key] = measure.Reference(sa, sb)
                worst, bad = measure.check(s, mod, sa, sb, refs[key])
                status[s.name] = measure.status(worst, bad)
                failed |= bad > 0
                if bad == 0:
                    c = torch.empty((n, n), device=dev, dtype=torch.float32)
                    fns[s.name] = (lambda m, x, y, z: lambda: m.launch(x, y, z))(mod, sa, sb, c)
            except Exception as e:  # a compile/launch problem of one step
                first = str(e).splitlines()[0][:80] if str(e) else ""
                status[s.name] = f"ERROR {type(e).__name__}: {first}"
                failed = True
        del refs
        times = timer.run(fns)
        for s in steps:
            ms = measure.median(times.get(s.name, []))
            tflops = 2.0 * n**3 / (ms * 1e-3) / 1e12 if ms == ms else float("nan")
            rows.append((n, s.name, ms, tflops, status[s.name].replace(",", ";")))
            print(f"triton_peer.py: n={n} {s.name}: {ms:.3f} ms {tflops:.2f} TFLOPS "
                  f"({len(times.get(s.name, []))} runs) {status[s.name]}", file=sys.stderr)
        del a, b, fns
        if dev == "cuda":
            torch.cuda.empty_cache()
    out = open(args.csv, "w") if args.csv else sys.stdout
    out.write("size,variant,ms,tflops,check\n")
    for n, v, ms, tf, st in rows:
        out.write(f"{n},{v},{ms:.4f},{tf:.3f},{st}\n")
    if args.csv:
        out.close()
    return 1 if failed else 0


def write_facts(steps, path, n, torch, triton, measure):
    """Runs each step once at n x n x n (autotuned steps pick their configuration for that size)
    and records what the compiler emitted for the kernel that ran."""
    a, b = measure.operands(n, n, n, n, "cuda")
    out = {"tool": "bench/triton_peer.py --facts", "size": n,
           "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
           "device": torch.cuda.get_device_name(0), "triton": triton.__version__,
           "torch": torch.__version__, "steps": {}}
    for s in steps:
        try:
            mod = s.load()
            sa, sb = measure.as_step_input(mod, a, b)
            c = torch.empty((n, n), device="cuda", dtype=torch.float32)
            compiled = mod.launch(sa, sb, c)
            torch.cuda.synchronize()
            out["steps"][s.name] = measure.facts(compiled)
        except Exception as e:
            out["steps"][s.name] = {"error": f"{type(e).__name__}: {str(e)[:200]}"}
        print(f"triton_peer.py: facts of {s.name}: {json.dumps(out['steps'][s.name])[:160]}",
              file=sys.stderr)
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
        f.write("\n")
    return 1 if any("error" in f for f in out["steps"].values()) else 0


if __name__ == "__main__":
    sys.exit(main())
