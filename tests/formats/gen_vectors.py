#!/usr/bin/env python3
"""gen_vectors.py — writes tests/formats/vectors.txt, the expected results that
tests/formats/test_formats.c checks gemmkit's conversions against where ml_dtypes is not
installed. Everything in it comes from ml_dtypes (numpy for float16) plus the rules of
docs/formats.md that ml_dtypes has no switch for (saturating mode = ml_dtypes of the value clamped
to the finite range; the documented differences). Rerun after changing a rule:

    python3 tests/formats/gen_vectors.py            # rewrites tests/formats/vectors.txt

Lines (hex without 0x; <fmt> is the gk_format number):
    decode <fmt> <code> <float32 bits>              every code of every format up to 8 bits
    decodesum <fmt> <ncodes> <checksum>             the 16-bit formats: checksum of all 65536 results
    encode <fmt> <float32 bits> <code> <code sat>   boundary values: each value, the midpoints
                                                    between neighbours, one float32 ulp either
                                                    side, beyond the range, +-0, +-Inf, NaNs
    random <fmt> <seed> <n> <checksum> <checksum sat>  n inputs from the generator below

The random inputs come from splitmix64 (reproduced in test_formats.c): each 64-bit draw r gives
one float32: r & 3 in {0, 1}: the bits r >> 32 (anything: NaN payloads, Inf, subnormals);
2: sign (r >> 8) & 1, a float32 exponent uniform over the format's range widened by 3 binades
below its smallest subnormal and 2 above its max ((r >> 40) % span), fraction (r >> 9) & 0x7fffff;
3: the same with the fraction cut to mantissa_bits + 1 bits, so that half of those are exact
halfway cases. The checksum is sum(code_i * w_i) mod 2^64, w_i = (i-th splitmix64 output from
CHECK_SEED) | 1.
"""
import os
import sys

import numpy as np

try:
    import ml_dtypes
except ImportError:
    sys.exit("gen_vectors.py needs ml_dtypes (pip install ml_dtypes)")

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "vectors.txt")

# gk_format number -> (name, mantissa bits)
FORMATS = {2: ("bfloat16", 7), 3: ("float16", 10), 4: ("float8_e4m3fn", 3), 5: ("float8_e5m2", 2),
           6: ("float8_e4m3fnuz", 3), 7: ("float8_e5m2fnuz", 2), 8: ("float8_e8m0fnu", 0),
           9: ("float6_e2m3fn", 3), 10: ("float6_e3m2fn", 2), 11: ("float4_e2m1fn", 1)}
RANDOM_N = 1 << 22
RANDOM_SEED = 0x6B6D66
CHECK_SEED = 0xC0DE5

M64 = (1 << 64) - 1


def dtype(name):
    return np.float16 if name == "float16" else getattr(ml_dtypes, name)


def width(name):
    return 16 if name in ("bfloat16", "float16") else 8


def code_dtype(name):
    return np.uint16 if width(name) == 16 else np.uint8


def ncodes(name):
    if name.startswith("float6"):
        return 64
    if name.startswith("float4"):
        return 16
    return 1 << width(name)


def finfo(name):
    return np.finfo(np.float16) if name == "float16" else ml_dtypes.finfo(dtype(name))


def encode(name, x, sat):
    """The codes gemmkit must produce (docs/formats.md)."""
    x = np.asarray(x, dtype=np.float32)
    with np.errstate(invalid="ignore", over="ignore"):
        xs = x
        if sat:
            if name == "float8_e8m0fnu":
                lo, hi = 2.0 ** -127, 2.0 ** 127
                xs = np.where(np.isnan(x), x, np.clip(np.nan_to_num(x, nan=0.0), lo, hi))
            else:
                m = float(finfo(name).max)
                xs = np.where(np.isnan(x), x, np.clip(x, -m, m))
            xs = xs.astype(np.float32)
        codes = xs.astype(dtype(name)).view(code_dtype(name)).copy()
    bits = x.view(np.uint32)
    if name == "float16":  # canonical quiet NaN, sign kept (numpy keeps payload bits)
        nan = np.isnan(x)
        codes[nan] = ((bits[nan] >> 16) & 0x8000 | 0x7E00).astype(np.uint16)
    if name == "float8_e8m0fnu":  # nearest: (2^-127, 1.5 * 2^-127) -> 2^-127, not 2^-126
        a = bits & 0x7FFFFFFF
        codes[(bits >> 31 == 0) & (a > 0x400000) & (a < 0x600000)] = 0
    return codes


def decode(name, codes):
    return np.asarray(codes).astype(code_dtype(name)).view(dtype(name)).astype(np.float32)


def checksum(codes):
    """sum(code_i * w_i) mod 2^64 with odd weights w_i = splitmix64(CHECK_SEED) | 1: one changed
    code always changes it (|difference| < 2^32, weight odd); test_formats.c computes the same."""
    w = splitmix64(CHECK_SEED, codes.size) | np.uint64(1)
    with np.errstate(over="ignore"):
        return int(np.sum(codes.astype(np.uint64) * w, dtype=np.uint64))


def splitmix64(seed, n):
    """n consecutive splitmix64 outputs from `seed`, as numpy uint64 (wrapping arithmetic)."""
    with np.errstate(over="ignore"):
        st = (np.uint64(seed) + np.arange(1, n + 1, dtype=np.uint64) *
              np.uint64(0x9E3779B97F4A7C15))
        z = st
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return z ^ (z >> np.uint64(31))


def random_inputs(name, mbits, seed, n):
    r = splitmix64(seed, n)
    kind = (r & np.uint64(3)).astype(np.uint32)
    raw = (r >> np.uint64(32)).astype(np.uint32)
    fi = finfo(name)
    lo = int(np.log2(float(fi.smallest_subnormal))) - 3 + 127
    hi = int(np.floor(np.log2(float(fi.max)))) + 2 + 127
    lo, hi = max(lo, 1), min(hi, 254)
    span = hi - lo + 1
    sign = ((r >> np.uint64(8)) & np.uint64(1)).astype(np.uint32)
    frac = ((r >> np.uint64(9)) & np.uint64(0x7FFFFF)).astype(np.uint32)
    expo = (lo + ((r >> np.uint64(40)) % np.uint64(span))).astype(np.uint32)
    cut = np.uint32(~((1 << (23 - mbits - 1)) - 1) & 0x7FFFFF) if mbits < 22 else np.uint32(0x7FFFFF)
    frac = np.where(kind == 3, frac & cut, frac)
    ranged = (sign << np.uint32(31)) | (expo << np.uint32(23)) | frac
    return np.where(kind < 2, raw, ranged).astype(np.uint32).view(np.float32)


def boundary_inputs(name):
    """Each finite value (16-bit formats: a selection), the midpoints between neighbours, one
    float32 ulp either side of those, values past the max, both signs; and the specials."""
    codes = np.arange(ncodes(name), dtype=np.uint32)
    if width(name) == 16:  # subnormals' start, around min normal, around 1, the top, a sample
        rng = np.random.default_rng(3)
        mn = int(np.array(finfo(name).tiny, dtype=dtype(name)).view(code_dtype(name)))
        one = int(np.array(1.0, dtype=dtype(name)).view(code_dtype(name)))
        top = int(np.array(finfo(name).max, dtype=dtype(name)).view(code_dtype(name)))
        pick = np.concatenate([np.arange(0, 12), np.arange(mn - 6, mn + 6), np.arange(one - 4, one + 4),
                               np.arange(top - 8, top + 1), rng.integers(0, top, 40)])
        codes = np.unique(pick).astype(np.uint32)
    v = decode(name, codes.astype(code_dtype(name))).astype(np.float64)
    v = np.unique(np.abs(v[np.isfinite(v)]))
    mids = (v[1:] + v[:-1]) / 2
    step = v[-1] - v[-2]
    beyond = v[-1] + step * np.array([0.25, 0.5, 0.75, 1, 1.5, 2, 1e6])
    with np.errstate(over="ignore"):
        pos = np.concatenate([v, mids, beyond]).astype(np.float32)
        pos = np.concatenate([pos, np.nextafter(pos, np.float32(np.inf)),
                              np.nextafter(pos, np.float32(0))])
    pos = np.unique(pos[np.isfinite(pos)])
    specials = np.array([0x00000000, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00000,
                         0x7F800001, 0xFFFFFFFF, 0x00000001, 0x80000001, 0x007FFFFF, 0x00800000,
                         0x7F7FFFFF, 0xFF7FFFFF], dtype=np.uint32).view(np.float32)
    return np.concatenate([pos, -pos, specials])


def main():
    lines = ["# tests/formats/vectors.txt: generated by tests/formats/gen_vectors.py from "
             "ml_dtypes %s and numpy %s; do not edit (the script says what each line is)"
             % (ml_dtypes.__version__, np.__version__)]
    for fmt, (name, _) in FORMATS.items():
        codes = np.arange(ncodes(name), dtype=np.uint32)
        y = decode(name, codes.astype(code_dtype(name))).view(np.uint32)
        if width(name) == 16:
            lines.append("decodesum %d %x %016x" % (fmt, codes.size, checksum(y)))
        else:
            lines += ["decode %d %x %08x" % (fmt, c, b) for c, b in zip(codes, y)]
    for fmt, (name, _) in FORMATS.items():
        x = boundary_inputs(name)
        c0, c1 = encode(name, x, 0), encode(name, x, 1)
        lines += ["encode %d %08x %x %x" % (fmt, b, a, s)
                  for b, a, s in zip(x.view(np.uint32), c0, c1)]
    for fmt, (name, mbits) in FORMATS.items():
        x = random_inputs(name, mbits, RANDOM_SEED + fmt, RANDOM_N)
        h0 = checksum(encode(name, x, 0))
        h1 = checksum(encode(name, x, 1))
        lines.append("random %d %x %x %016x %016x" % (fmt, RANDOM_SEED + fmt, RANDOM_N, h0, h1))
    with open(OUT, "w") as f:
        f.write("\n".join(lines) + "\n")
    print("wrote %s: %d lines, %d bytes" % (OUT, len(lines), os.path.getsize(OUT)))


if __name__ == "__main__":
    main()
