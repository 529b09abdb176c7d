"""registry.py — the Triton ladder: every step of the CUDA SGEMM ladder (src/cuda/registry.cu),
in order, with the Triton file that expresses it or the reason Triton cannot.

This table is the one list the runner (bench/triton_peer.py), the tests
(tests/ladder/triton_ladder_cases.py) and the docs (scripts/gen_docs.py, docs/ladder.md) read.
It imports nothing from triton or torch, so the docs can be generated on a machine without them.

Fields of a step:
  name      the Triton step; its file is triton_ladder/<name>.py when `file` is true
  cuda      the CUDA step it sits beside: a name of the CUDA registry, or "gemm_ex:<dtype>" for
            the mixed-precision path (gk_cuda_gemm_ex, rows of bench/results/<machine>/tc.csv)
  adds      what this step adds in Triton (for a collapsed step: what changed, often nothing
            but a block shape, and what the compiler already did)
  why_not   for a step Triton cannot express: why (no file, no kernel)
  dtype     operand format handed to tl.dot ("fp32" steps read float32 directly)
  u_in      operand unit roundoff for the accuracy rule (harness/harness.py): TF32_U for TF32;
            0 for formats whose products are exact (the reference is computed from the stored,
            already-rounded operands)
  acc_u     extra error per term of K for a short accumulator (FP8 on Hopper wgmma: 2^-13,
            the bound docs/cuda.md gives the CUDA FP8 path with fast accumulation)
"""
import importlib.util
import os

HERE = os.path.dirname(os.path.abspath(__file__))
# Triton hands FP32 operands to the tensor cores unrounded (its PTX has no cvt.rna.tf32), and the
# hardware drops their low 13 mantissa bits: truncation, u = 2^-10, the value docs/cuda.md uses for
# gemmkit's own sm_90a TF32 kernel (CUDA step 14 rounds to nearest: 2^-11).
TF32_U = 2.0 ** -10


class Step:
    def __init__(self, name, cuda, adds="", why_not="", dtype="fp32", u_in=0.0, acc_u=0.0):
        self.name, self.cuda, self.adds, self.why_not = name, cuda, adds, why_not
        self.dtype, self.u_in, self.acc_u = dtype, u_in, acc_u

    @property
    def file(self):
        """Path of the step's file, or None where Triton cannot express the step."""
        return None if self.why_not else os.path.join(HERE, self.name + ".py")

    def load(self):
        """The step's module (defines matmul(a, b) -> C and launch(a, b, c) -> compiled kernel)."""
        return load(self.name)


def load(name):
    """Imports triton_ladder/<name>.py (step files start with a digit, so not importable by
    name); a module is loaded once and shared, as steps build on each other's kernels."""
    key = "triton_ladder_" + name
    import sys
    if key not in sys.modules:
        spec = importlib.util.spec_from_file_location(key, os.path.join(HERE, name + ".py"))
        mod = importlib.util.module_from_spec(spec)
        sys.modules[key] = mod
        spec.loader.exec_module(mod)
    return sys.modules[key]


STEPS = [
    Step("01_naive", "01_naive",
         "one program per 128 rows of one column of C, a K loop of scalar FMAs read straight from "
         "global memory; consecutive threads hold consecutive rows, so A loads and C stores are "
         "strided as in the CUDA step"),
    Step("02_coalesced", "02_coalesced",
         "the same loop over 128 columns of one row of C: B loads and C stores are contiguous, "
         "the A element is one broadcast"),
    Step("03_smem_tiling", "03_smem_tiling",
         "tl.dot of 32x32x32 tiles with FP32 products (input_precision='ieee'): the operands' "
         "trip through shared memory and the barriers are the compiler's"),
    Step("04_1d_block_tiling", "04_1d_register_tiling",
         "step 3's kernel as 64x64x16 tiles on 16 warps (8 outputs per thread, as the CUDA step; "
         "tl.dot needs K >= 16): how the outputs map onto threads is the compiler's layout"),
    Step("05_2d_block_tiling", "05_2d_register_tiling",
         "step 3's kernel as 128x128x16 tiles on 8 warps (64 outputs per thread)"),
    Step("06_vectorized", "06_vectorized",
         "step 5's kernel unchanged with BK = 32: Triton vectorizes global accesses itself where "
         "it can prove 16-byte alignment (pointer and stride specialization), so the source has "
         "nothing to add; the facts show which loads became .v4"),
    Step("07_bank_conflict_free", "07_bank_conflict_free",
         why_not="shared-memory layouts (padding, swizzle) are chosen by the compiler for each "
                 "tl.dot operand; the language has no shared-memory arrays to pad"),
    Step("08_warp_tiling", "08_warp_tiling",
         why_not="a program is one block; how its tile is split over warps and lanes "
                 "(warpsPerCTA, threadsPerWarp) is the compiler's layout, only num_warps is given"),
    Step("09_double_buffering", "09_double_buffering",
         why_not="a prefetch staged in registers cannot be asked for: with num_stages >= 2 the "
                 "compiler's pipeliner turns the tile loads into cp.async copies into shared "
                 "memory (step 10)"),
    Step("10_pipelined", "10_cp_async_pipeline",
         "step 5's kernel with num_stages = 3: the compiler's software pipeliner keeps copies of "
         "the next tiles in flight"),
    Step("11_autotuned", "11_autotuned",
         "@triton.autotune over eight tile shapes, stage counts and warp counts, chosen per "
         "problem size by timing them, with a grouped tile order for L2 reuse"),
    Step("12_inline_ptx", "12_ptx_128x128x8",
         why_not="inline PTX in Triton (tl.inline_asm_elementwise) is elementwise on registers; "
                 "it cannot issue the loads, shared stores or buffer switching of the CUDA step"),
    Step("13_tile_128x256", "13_cp_async_128x256x8",
         "step 10's kernel as one fixed 128x256x16 tile shape, 4 stages, 8 warps, grouped order"),
    Step("14_tf32_dot", "14_tf32_mma",
         "step 11's autotuned kernel with input_precision='tf32': tl.dot on tensor cores "
         "(the instruction, mma.sync or wgmma, is the compiler's)", u_in=TF32_U),
    Step("15_stream_k", "15_stream_k",
         "one program per SM: full waves of step 13's tiles data-parallel, the K iterations of "
         "the last wave's tiles split evenly over all programs; the pieces are summed in program "
         "order by a second launch (the CUDA step sums them in-kernel behind flags)"),
    Step("16_bf16_dot", "gemm_ex:bf16",
         "step 11's kernel on BF16 operands (FP32 accumulation, FP32 C)", dtype="bf16"),
    Step("17_fp16_dot", "gemm_ex:f16",
         "step 11's kernel on FP16 operands (FP32 accumulation, FP32 C)", dtype="fp16"),
    Step("18_fp8_dot", "gemm_ex:e4m3",
         "step 11's kernel on FP8 E4M3 operands with B column-major (FP8 wgmma reads B from "
         "shared memory K-major only; a row-major B is transposed through registers every K "
         "step) and 128 of K per step (FP32 C; Hopper's FP8 accumulation is short)",
         dtype="fp8e4m3", acc_u=2.0 ** -13),
    Step("19_wgmma", "16_wgmma_tf32",
         why_not="the MMA instruction is the compiler's choice, not the source's: on Hopper the "
                 "tl.dot of step 14 already compiles to wgmma, so there is nothing to add", u_in=TF32_U),
    Step("20_tma", "17_tma_ring",
         "128x128x32 TF32 tiles read through host-built tensor descriptors (desc.load: TMA on "
         "Hopper); the copies' barriers and stages are the compiler's; operands whose rows are "
         "not 16-byte strided are first copied into padded rows, in the timed call",
         u_in=TF32_U),
    Step("21_warp_specialized", "18_warp_specialized",
         "step 20's kernel with its K loop as tl.range(..., warp_specialize=True), asking the "
         "compiler for loading and multiplying warp groups; Triton 3.6 on the H100 emitted the "
         "same instructions as step 20 (facts) and ran at its speed: it did not split this "
         "loop", u_in=TF32_U),
    Step("22_persistent", "19_persistent",
         "one program per SM looping over 128x128x32 tiles in grouped order with "
         "TF32 products, as step 15's full waves: the loop is the source's, the pipeline inside "
         "a tile the compiler's", u_in=TF32_U),
    Step("23_clusters", "20_clusters",
         "step 22's kernel launched with num_ctas=2: each program a cluster of two CTAs sharing "
         "one tile, one program per pair of SMs; how the tile is split over them and what is "
         "multicast is the compiler's", u_in=TF32_U),
]


def expressed():
    return [s for s in STEPS if not s.why_not]


def by_name(name):
    for s in STEPS:
        if s.name == name:
            return s
    raise KeyError(name)
