#!/usr/bin/env bash
# test_triton_ladder.sh — checks every Triton ladder step (triton_ladder/) with gemmkit's accuracy
# rule on odd and small ladder sizes (tests/ladder/triton_ladder_cases.py). Uses the first of
# $GK_PYTHON, python3 on PATH and /usr/bin/python3 that imports torch and triton; with no CUDA
# device it runs the steps in Triton's CPU interpreter (TRITON_INTERPRET=1), on the GPU compiled.
# Autotuned steps run their first configuration only (GK_TRITON_ONE_CONFIG=1, set by the cases
# file): the same kernels, without compiling and timing every configuration for each odd shape.
# Prints skip when no such Python exists (scripts/deps.sh names the optional pip install).
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
py=
for p in ${GK_PYTHON:-} "$(command -v python3 || true)" /usr/bin/python3; do
    [ -n "$p" ] && [ -x "$p" ] || continue
    if "$p" -c 'import torch, triton' >/dev/null 2>&1; then py=$p; break; fi
done
if [ -z "$py" ]; then
    echo "skip triton_ladder: no python3 with torch and triton (pip install torch triton)"
    exit 0
fi
if ! "$py" -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' >/dev/null 2>&1; then
    export TRITON_INTERPRET=1
fi
exec "$py" "$root/tests/ladder/triton_ladder_cases.py"
