#!/usr/bin/env bash
# run.sh — what `make bench` runs: the CPU benchmark (gemmkit vs OpenBLAS and BLIS) always, and
# the GPU ladder benchmark when a CUDA device is present (gemmkit bench --device all decides).
# Results go to $GK_BUILD/bench-results (the build tree, never the source tree); extra arguments
# go to `gemmkit bench` and win over these defaults, e.g.
#   GK_BUILD=build bash bench/run.sh --quick --out /tmp/results
# Committed results under bench/results/ are curated by hand from such runs.
set -eu
cd "$(dirname "$0")/.."
build=${GK_BUILD:-build}
cli=$build/bin/gemmkit
if [ ! -x "$cli" ]; then
    echo "bench/run.sh: $cli not found; build first (make BUILD=$build)" >&2
    exit 1
fi
if [ ! -f "$build/lib/gk_blis_best.so" ]; then
    echo "bench/run.sh: $build/lib/gk_blis_best.so missing; the blis-best column will be reported missing" >&2
fi
GK_BLIS_BEST=$build/lib/gk_blis_best.so exec "$cli" bench --device all --out "$build/bench-results" "$@"
