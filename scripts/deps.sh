#!/usr/bin/env bash
# deps.sh — makes sure the Debian packages that the tests and benchmarks use are present.
# The library itself needs only a C11 compiler with OpenMP. The rest are peers (OpenBLAS, BLIS),
# plotting, numpy tests, the netlib BLAS test programs and, on x86-64, QEMU's user-mode emulator
# (tests/cpu/test_avx2_emulated.sh runs the CPU tests on an emulated CPU without AVX-512). As root
# with apt-get, missing packages are installed; otherwise each missing one is named with the
# command that installs it, and the tests or benchmark columns that need it report themselves
# skipped.
set -u
pkgs=(libopenblas-dev libblis-dev python3-numpy python3-matplotlib libblas-test pkg-config gfortran)
[ "$(uname -m)" = x86_64 ] && pkgs+=(qemu-user)
# Optional, only with GK_PIP_TRITON=1 (a download of several hundred MB): torch and triton for
# tests/ladder/test_triton_ladder.sh, which runs the Triton ladder in Triton's CPU interpreter
# when there is no GPU and reports skip without them.
if [ "${GK_PIP_TRITON:-0}" = 1 ] && ! python3 -c 'import torch, triton' >/dev/null 2>&1; then
    echo "deps: pip installing torch and triton (log: /tmp/gemmkit-pip.log)"
    { python3 -m pip install torch --index-url https://download.pytorch.org/whl/cpu ||
        python3 -m pip install torch; } >/tmp/gemmkit-pip.log 2>&1 &&
        python3 -m pip install triton >>/tmp/gemmkit-pip.log 2>&1 ||
        echo "deps: pip failed; the Triton ladder test will report skip"
fi
command -v dpkg-query >/dev/null 2>&1 || { echo "deps: not a Debian system; install the equivalents of: ${pkgs[*]}"; exit 0; }
missing=()
for p in "${pkgs[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1 && [ "${GK_NO_INSTALL:-0}" != 1 ]; then
    echo "deps: installing ${missing[*]} (set GK_NO_INSTALL=1 to skip)"
    export DEBIAN_FRONTEND=noninteractive
    { apt-get update -q && apt-get install -y -q --no-install-recommends "${missing[@]}"; } >/tmp/gemmkit-deps.log 2>&1 ||
        echo "deps: apt-get failed (log: /tmp/gemmkit-deps.log); the parts needing ${missing[*]} will be skipped"
else
    echo "deps: missing ${missing[*]}; install with: sudo apt-get install ${missing[*]}"
    echo "deps: continuing; tests and benchmark columns that need them report themselves skipped"
fi
exit 0
