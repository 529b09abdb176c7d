#!/usr/bin/env bash
# test_quant.sh — `gemmkit quant` end to end: known codes and values (465 in E4M3FN is NaN
# non-saturating and 448 saturating; E5M2 overflows to Inf; E8M0 has no zero), the bit fields as
# printed, every registry format listed, values from a text file and from a raw float32 file, and
# usage errors (exit 2 with a message naming the culprit). Prints ok/FAIL lines.
set -u
cli=${GK_BUILD:-build}/bin/gemmkit
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ ! -x "$cli" ]; then
    echo "FAIL quant_cli_exists: $cli not built"
    exit 1
fi

# expect NAME STATUS PATTERN... -- COMMAND...: exit status STATUS, output matching every PATTERN.
expect() {
    local name=$1 want=$2
    shift 2
    local pats=()
    while [ "$1" != "--" ]; do
        pats+=("$1")
        shift
    done
    shift
    "$@" >"$tmp/out" 2>&1
    local rc=$?
    if [ "$rc" -ne "$want" ]; then
        echo "FAIL $name: exit $rc, expected $want; output: $(tail -n 3 "$tmp/out" | tr '\n' ' ')"
        return
    fi
    for pat in "${pats[@]}"; do
        if ! grep -Eq -- "$pat" "$tmp/out"; then
            echo "FAIL $name: output lacks /$pat/: $(head -n 4 "$tmp/out" | tr '\n' ' ')"
            return
        fi
    done
    echo "ok $name"
}

row='^ +float8_e4m3fn +'
expect quant_465_e4m3fn 0 \
    "$row"'nonsat +0 1111 111 +0x7f +nan ' "$row"'sat +0 1111 110 +0x7e +448 +17 +0.03656$' \
    -- "$cli" quant 465 --format float8_e4m3fn
expect quant_e5m2_overflow 0 \
    'float8_e5m2 +nonsat +1 11111 00 +0xfc +-inf' 'float8_e5m2 +sat +1 11110 11 +0xfb +-57344' \
    -- "$cli" quant --format float8_e5m2 -1e6
expect quant_e8m0_zero 0 'nonsat +11111111 +0xff +nan' 'sat +00000000 +0x00 +5.877' \
    -- "$cli" quant --format float8_e8m0fnu 0
expect quant_bf16_rounding 0 'bfloat16 +nonsat +0 10000000 1010011 +0x4053 +3.296875 ' \
    -- "$cli" quant 3.3
# -1.75 lies halfway between -1.5 (odd mantissa) and -2 (even): ties go to even
expect quant_fp4_tie 0 'float4_e2m1fn +nonsat +1 10 0 +0xc +-2 +0.25 +0.1429' \
    -- "$cli" quant -1.75 --format float4_e2m1fn

# every registry format, both modes: 12 formats x 2 rows for one value
"$cli" quant 1 >"$tmp/all" 2>&1
rows=$(grep -Ec '^ +[a-z0-9_]+ +(nonsat|sat) ' "$tmp/all")
if [ "$rows" -eq 24 ]; then echo "ok quant_every_format"; else
    echo "FAIL quant_every_format: $rows rows, expected 24"; fi

printf '# a comment\n1.5\n\n  -2\n465\n' >"$tmp/values.txt"
expect quant_text_file 0 '^1.5 \(float32 0x3fc00000\)' '^-2 \(float32 0xc0000000\)' '^465 ' \
    -- "$cli" quant --file "$tmp/values.txt" --format float6_e3m2fn
printf '\x00\x00\x80\x3f\x00\x80\xe8\x43' >"$tmp/values.f32" # 1.0f and 465.0f, little-endian
expect quant_raw_file 0 '^1 \(float32 0x3f800000\)' '^465 \(float32 0x43e88000\)' \
    -- "$cli" quant --file "$tmp/values.f32" --raw --format float8_e4m3fn

expect quant_unknown_format 2 "unknown format 'float7'" -- "$cli" quant --format float7 1
expect quant_not_a_number 2 "'12abc' is neither" -- "$cli" quant 12abc
expect quant_nothing 2 'give values or --file' -- "$cli" quant
printf '1\nbad\n' >"$tmp/bad.txt"
expect quant_bad_line 2 'bad.txt:2: not a number' -- "$cli" quant --file "$tmp/bad.txt"
expect quant_help 0 'Formats: float32 tfloat32 bfloat16' -- "$cli" quant --help
