"""triton_ladder_cases.py — checks every step of the Triton ladder (triton_ladder/) with gemmkit's
accuracy rule, and the ladder's registry against the CUDA one. Run by test_triton_ladder.sh,
which picks a Python with torch and triton and, without a GPU, sets TRITON_INTERPRET=1 so the
steps run in Triton's CPU interpreter on small problems.

Each case is a row-major C = A B of float32 operands uniform in [-1, 1) (converted to the step's
operand format first), C filled with NaN before the call; shapes are not multiples of any tile,
the padded cases give A and B leading dimensions that are not multiples of 4, and C lies inside
a larger buffer whose elements outside C must stay untouched. Operands converted to another
format keep their padded rows (measure.as_step_input), FP8's column-major B included.
"""
import os
import re
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, ROOT)
# Autotuned steps run their first configuration only (triton_ladder/11_autotuned.py, ONE_CONFIG):
# the same kernel, checked here on every shape, without compiling and timing every configuration
# for each new shape. Set before the steps are imported; bench/triton_peer.py below inherits it.
os.environ["GK_TRITON_ONE_CONFIG"] = "1"
import torch  # noqa: E402
from triton_ladder import measure, registry  # noqa: E402

# (m, n, k, pad): pad > 0 makes lda = k + pad and ldb = n + pad
CPU_CASES = [(1, 1, 1, 0), (37, 45, 53, 0), (65, 130, 17, 3), (128, 128, 128, 0)]
GPU_CASES = CPU_CASES + [(257, 129, 1031, 1), (1000, 1000, 1000, 0), (1024, 1024, 1024, 0),
                         (2048, 2048, 2048, 0)]

# Shapes that make step 15 split tiles along K (T % P != 0 tiles of 128x256 on P programs: 4 on
# the interpreter, one per SM on the GPU), with ranges that cross a tile boundary or end at a
# ragged K.
EXTRA = {"15_stream_k": {"cpu": [(896, 256, 80, 0), (700, 520, 77, 1)],
                         "cuda": [(3000, 3000, 1031, 0), (4096, 4096, 4096, 0)]}}

# Triton's interpreter multiplies BF16 tl.dot operands as their uint16 bit patterns
# (runtime/interpreter.py, create_dot), so a BF16 step cannot be checked there.
INTERPRETER_BROKEN = {"bf16": "Triton's CPU interpreter multiplies BF16 dot operands as raw "
                              "uint16 bits (create_dot); checked on the GPU only"}


def check_registry():
    """Every CUDA registry step has a Triton entry; every Triton entry names a real CUDA step,
    has its file exactly when it is expressible, and says why when it is not."""
    with open(os.path.join(ROOT, "src/cuda/registry.cu")) as f:
        cuda = re.findall(r'^\s*\{"(\d\d_\w+)",', f.read(), re.M)
    named = {s.cuda for s in registry.STEPS}
    problems = ["CUDA step %s has no Triton entry" % c for c in cuda if c not in named]
    for s in registry.STEPS:
        if not s.cuda.startswith("gemm_ex:") and s.cuda not in cuda:
            problems.append("%s pairs with unknown CUDA step %s" % (s.name, s.cuda))
        path = os.path.join(registry.HERE, s.name + ".py")
        if s.why_not and os.path.exists(path):
            problems.append("%s is marked not expressible but has %s" % (s.name, path))
        if not s.why_not and not os.path.exists(path):
            problems.append("%s has no file %s" % (s.name, path))
        if not (s.why_not or s.adds):
            problems.append("%s says neither what it adds nor why not" % s.name)
    if problems:
        print("FAIL triton_registry: " + "; ".join(problems))
        return False
    print("ok triton_registry: %d CUDA steps, %d Triton steps, %d not expressible"
          % (len(cuda), len(registry.expressed()), len(registry.STEPS) - len(registry.expressed())))
    return True


def check_runner(dev):
    """bench/triton_peer.py end to end: its CSV has a checked, timed row per step and size, for a
    fixed-tile step and stream-K's two launches (on the GPU also an autotuned step and FP8 with its
    column-major B, and --facts); the steps themselves are checked above."""
    import json
    import subprocess
    import tempfile
    names = ["03_smem_tiling", "15_stream_k"]
    if dev == "cuda":
        names.append("11_autotuned")
        if torch.cuda.get_device_capability() >= (8, 9):
            names.append("18_fp8_dot")
    steps = [registry.by_name(n) for n in names]
    with tempfile.TemporaryDirectory() as tmp:
        out, facts = os.path.join(tmp, "t.csv"), os.path.join(tmp, "f.json")
        cmd = [sys.executable, os.path.join(ROOT, "bench/triton_peer.py"), "--sizes", "24,257",
               "--reps", "3", "--rounds", "1", "--budget", "0.1", "--csv", out,
               "--steps", ",".join(s.name for s in steps)]
        r = subprocess.run(cmd, capture_output=True, text=True)
        rows = open(out).read().splitlines() if os.path.exists(out) else []
        want = ["%d,%s," % (n, s.name) for n in (24, 257) for s in steps]
        bad = [w for w in want if not any(r.startswith(w) and ",ok " in r for r in rows)]
        if r.returncode or rows[:1] != ["size,variant,ms,tflops,check"] or bad:
            print("FAIL triton_runner: exit %d, missing or failed rows %s; %s"
                  % (r.returncode, bad, r.stderr.strip().splitlines()[-1:] if r.stderr else ""))
            return False
        if dev == "cuda":
            r = subprocess.run(cmd[:2] + cmd[-2:] + ["--facts", facts, "--facts-size", "512"],
                               capture_output=True, text=True)
            got = json.load(open(facts))["steps"] if os.path.exists(facts) else {}
            bad = [s.name for s in steps if "ptx" not in got.get(s.name, {})]
            if r.returncode or bad:
                print("FAIL triton_runner: --facts exit %d, no facts for %s" % (r.returncode, bad))
                return False
    print("ok triton_runner (%d steps: checked, timed%s, CSV as gemmkit ladder merges it)"
          % (len(steps), ", facts" if dev == "cuda" else ""))
    return True


def main():
    ok = check_registry()
    dev = measure.device()
    if dev == "cpu" and not measure.interpreting():
        print("skip triton_ladder: no CUDA device and TRITON_INTERPRET is not 1")
        return 0
    cases = CPU_CASES if dev == "cpu" else GPU_CASES
    where = "interpreter" if dev == "cpu" else "GPU " + torch.cuda.get_device_name(0)
    only = os.environ.get("GK_TRITON_STEPS")  # names or prefixes, for iterating on one step
    for s in registry.expressed():
        if only and not any(s.name.startswith(w) for w in only.split(",")):
            continue
        if dev == "cpu" and s.dtype in INTERPRETER_BROKEN:
            print("skip triton_%s: %s" % (s.name, INTERPRETER_BROKEN[s.dtype]))
            continue
        if dev == "cuda" and s.dtype == "fp8e4m3" and torch.cuda.get_device_capability() < (8, 9):
            print("skip triton_%s: FP8 tensor cores need sm_89 or later" % s.name)
            continue
        mod, worst, failures, t0 = s.load(), 0.0, [], time.perf_counter()
        for m, n, k, pad in cases + EXTRA.get(s.name, {}).get(dev, []):
            a, b = measure.as_step_input(mod, *measure.operands(m, n, k, m * 7 + n, dev, pad))
            try:
                w, bad = measure.check(s, mod, a, b, guard=True)
            except Exception as e:
                first = str(e).splitlines()[0][:120] if str(e) else ""
                failures.append("%dx%dx%d: %s: %s" % (m, n, k, type(e).__name__, first))
                continue
            worst = max(worst, w)
            if bad:
                failures.append("%dx%dx%d pad %d: %s" % (m, n, k, pad, measure.status(w, bad)))
        if failures:
            ok = False
            print("FAIL triton_%s (%s): %s" % (s.name, where, "; ".join(failures)))
        else:
            print("ok triton_%s (%s, %d shapes, worst err/bound %.2g, %.1f s with compiles)"
                  % (s.name, where, len(cases + EXTRA.get(s.name, {}).get(dev, [])), worst,
                     time.perf_counter() - t0))
    if not only:
        ok = check_runner(dev) and ok
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
