"""measure.py — what bench/triton_peer.py and tests/ladder/triton_ladder_cases.py do with a Triton
ladder step: build its operands, check its result with gemmkit's accuracy rule, time it by the
CUDA ladder's method, and read what the compiler made of it.

- Check (harness/harness.py, docs/testing.md): C is filled with NaN, the step runs once, and every
  element is compared with a float64 reference of the operands as the step receives them (BF16,
  FP16 and FP8 operands are rounded first, so their products are exact); u_in is the step's
  (2^-10 for Triton's TF32: registry.TF32_U), plus acc_u * K * S for FP8's short accumulator
  (triton_ladder/registry.py).
- Timing (bench/gpu/ladder.cu): one warm-up (two more for runs under 1 ms), then up to `reps` timed
  runs within `budget` seconds (at least 3), each between two CUDA events, with a buffer of twice
  the L2 size overwritten before each, outside the events, so every run starts with a cold L2;
  the median is reported. Runs are spread over rounds that visit every step in turn.
- Facts: the compiled kernel's metadata (shared memory, registers, spills, warps, stages) and
  counts of instructions and IR operations in the PTX and TTGIR that Triton emitted.
"""
import os
import re
import statistics
import sys
import time

import torch

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "harness"))
from harness import compare, reference  # noqa: E402  (after the path it lives on)


def interpreting():
    return os.environ.get("TRITON_INTERPRET") == "1"


def device():
    """Where the steps run: the GPU, or the CPU under Triton's interpreter (TRITON_INTERPRET=1)."""
    return "cpu" if interpreting() or not torch.cuda.is_available() else "cuda"


def operands(m, n, k, seed, dev, pad=0):
    """float32 A (m x k) and B (k x n), uniform in [-1, 1), row-major; pad > 0 makes each row
    that many elements longer than needed (A and B are then views with lda = k + pad)."""
    gen = torch.Generator(device=dev).manual_seed(seed)
    a = torch.rand((m, k + pad), device=dev, generator=gen) * 2 - 1
    b = torch.rand((k, n + pad), device=dev, generator=gen) * 2 - 1
    return a[:, :k], b[:, :n]


def _padded_copy(x, dt, pad):
    """x (rows x cols) in format dt, row-major with rows pad elements longer than needed."""
    out = torch.empty((x.shape[0], x.shape[1] + pad), device=x.device, dtype=dt)[:, :x.shape[1]]
    out.copy_(x)
    return out


def as_step_input(mod, a, b):
    """A and B as the step takes them: in its operand format (its module's DTYPE; float32 when it
    has none), B column-major when the module sets B_K_MAJOR (a view of the transpose of a
    row-major copy); rows as padded as the given operands' (pad = leading dimension - width)."""
    dt = getattr(mod, "DTYPE", torch.float32)
    k_major = getattr(mod, "B_K_MAJOR", False)
    if dt == torch.float32 and not k_major:
        return a, b
    pad_a, pad_b = a.stride(0) - a.shape[1], b.stride(0) - b.shape[1]
    a = _padded_copy(a, dt, pad_a)
    b = _padded_copy(b.t(), dt, pad_b).t() if k_major else _padded_copy(b, dt, pad_b)
    return a, b


class Reference:
    """The float64 reference and scale of one pair of operands, computed once for all steps."""

    def __init__(self, a, b):
        self.k = a.shape[1]
        self.ref, self.scale = reference(a.float(), b.float())


GUARD = -7777.0  # written around C by check(guard=True); no step's result can equal it here


def check(step, mod, a, b, ref=None, guard=False):
    """Runs the step once on a NaN-filled C; (worst err/bound, elements beyond the bound).
    guard: C is the top-left block of a buffer one row and 16 columns larger (so ldc keeps n's
    alignment class) filled with GUARD there; a store outside C counts as one bad element each."""
    ref = ref or Reference(a, b)
    m, n = a.shape[0], b.shape[1]
    buf = torch.full((m + guard, n + 16 * guard), GUARD, device=a.device, dtype=torch.float32)
    c = buf[:m, :n]
    c.fill_(float("nan"))
    mod.launch(a, b, c)
    if a.is_cuda:
        torch.cuda.synchronize()
    err, bound, _ = compare(c, ref.ref, ref.scale, ref.k, step.u_in)
    bound = bound + step.acc_u * ref.k * ref.scale
    ratio = torch.nan_to_num(err / bound, nan=float("inf"))
    bad = int((~(err <= bound)).sum().item())
    if guard:
        outside = buf.clone()
        outside[:m, :n] = GUARD
        bad += int((outside != GUARD).sum().item())
    return ratio.max().item(), bad


def status(worst, bad):
    return f"ok {worst:.2g}" if bad == 0 else f"FAIL {bad} bad; worst err/bound {worst:.3g}"


class Timer:
    """The CUDA ladder's timing method (module docstring) for the steps of one problem size."""

    def __init__(self, reps=30, budget=1.5, rounds=3):
        self.reps, self.budget, self.rounds = reps, budget, rounds
        self.gpu = device() == "cuda"
        if self.gpu:
            l2 = getattr(torch.cuda.get_device_properties(0), "L2_cache_size", 50 << 20)
            self.flush = torch.empty(2 * l2 // 4, device="cuda", dtype=torch.float32)
            self.events = [torch.cuda.Event(enable_timing=True) for _ in range(2)]

    def once(self, fn):
        if not self.gpu:  # the interpreter: wall time, only so the runner itself can be tested
            t0 = time.perf_counter()
            fn()
            return (time.perf_counter() - t0) * 1e3
        self.flush.fill_(1.0)  # outside the timed interval: evicts A, B and C from L2
        start, stop = self.events
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        return start.elapsed_time(stop)

    def run(self, fns):
        """{name: [ms, ...]} for {name: fn}; fns run round-robin, each within its budget."""
        times = {name: [] for name in fns}
        for name, fn in fns.items():  # warm-up: compile, autotune, load the module
            if self.once(fn) < 1.0:
                self.once(fn), self.once(fn)
        spent = {name: 0.0 for name in fns}
        per_round = -(-self.reps // self.rounds)
        for r in range(self.rounds):
            for name, fn in fns.items():
                for _ in range(per_round):
                    share = self.budget * (r + 1) / self.rounds  # budget spent by round's end
                    enough = len(times[name]) >= 3 and spent[name] >= share
                    if len(times[name]) >= self.reps or enough:
                        break
                    t0 = time.perf_counter()
                    times[name].append(self.once(fn))
                    spent[name] += time.perf_counter() - t0
        return times


def median(ms):
    return statistics.median(ms) if ms else float("nan")


# --------------------------------------------------------------------------- facts

PTX_COUNTS = {  # static counts in the PTX text: what the compiler chose to emit
    "ld.global": r"\bld\.global\.",
    "ld.global.v4": r"\bld\.global\.[\w.]*v4\.",
    "st.global.v4": r"\bst\.global\.[\w.]*v4\.",
    "ld.shared": r"\bld\.shared\.",
    "ld.shared.v4": r"\bld\.shared\.[\w.]*v4\.",
    "st.shared": r"\bst\.shared\.",
    "st.shared 1-byte": r"\bst\.shared\.[bsu]8\b",  # an 8-bit operand transposed in registers
    "ldmatrix": r"\bldmatrix\.",
    "cp.async": r"\bcp\.async\.c[ag]\.",
    "cp.async 16-byte": r"\bcp\.async\.c[ag]\.shared\.global\s[^;]*,\s*(?:0x10|16)\s*[,;]",
    "cp.async.bulk (TMA)": r"\bcp\.async\.bulk\.",
    "fma.f32": r"\bfma\.rn\.f32\b",
    "mma.sync": r"\bmma\.sync\.",
    "wgmma": r"\bwgmma\.mma_async\.",
    "bar.sync": r"\b(bar|barrier)\.sync\b",
}
TTGIR_COUNTS = {
    "local_alloc": r"ttg\.local_alloc",
    "async_copy_global_to_local": r"ttg\.async_copy_global_to_local",
    "async_wait": r"ttg\.async_wait",
    "convert_layout": r"ttg\.convert_layout",
    "tt.dot": r"\btt\.dot\b",
    "warp_group_dot": r"ttng\.warp_group_dot\b",
}


def _layouts(ttgir):
    """{alias: definition} of the layout attributes at the top of the TTGIR."""
    return dict(re.findall(r"^(#[\w]+) = (#.*)$", ttgir, re.M))


def _dot_layout(ttgir, layouts):
    """The layout of the accumulator: the encoding of the first dot's result tensor."""
    m = re.search(r"(?:tt\.dot|ttng\.warp_group_dot)\b.*?->\s*tensor<[^,>]*,\s*(#\w+)", ttgir)
    if not m:
        return None
    return "%s = %s" % (m.group(1), layouts.get(m.group(1), "?"))


def constants(compiled):
    """The compile-time constants (block shape, precision, ...) the kernel was compiled with."""
    try:
        names = compiled.src.fn.arg_names
        return {names[k[0]] if isinstance(k, tuple) else str(k): v
                for k, v in compiled.src.constants.items() if isinstance(v, (int, str, float))}
    except Exception:  # an internal of Triton's that moved: the facts stand without it
        return None


def facts(compiled):
    """What Triton emitted for one compiled kernel (the object a launch returns)."""
    try:
        compiled._init_handles()  # loads the module; sets n_regs and n_spills
    except Exception:
        pass
    md = compiled.metadata
    ptx, ttgir = compiled.asm.get("ptx", ""), compiled.asm.get("ttgir", "")
    layouts = _layouts(ttgir)
    return {
        "constants": constants(compiled),
        "num_warps": md.num_warps,
        "num_stages": getattr(md, "num_stages", None),
        "shared_bytes": md.shared,
        "registers": getattr(compiled, "n_regs", None),
        "spills": getattr(compiled, "n_spills", None),
        "ptx": {k: len(re.findall(p, ptx)) for k, p in PTX_COUNTS.items()},
        "ttgir": {k: len(re.findall(p, ttgir)) for k, p in TTGIR_COUNTS.items()},
        "accumulator_layout": _dot_layout(ttgir, layouts),
        "shared_layouts": sorted(v for v in layouts.values() if "_shared<" in v),
        "blocked_layouts": sorted(v for v in layouts.values() if v.startswith("#ttg.blocked<")),
    }
