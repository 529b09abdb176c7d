#!/bin/sh
# Xeon, session 7: per-call time of tiny GEMMs, 1 thread, loops of calls through two libraries in
# one process (gk-call-ab): this tree against the tree before its per-call change (before.tar, a
# `git archive` of 7cf276a carried for the run, not committed), and against the system OpenBLAS
# with OPENBLAS_CORETYPE=SkylakeX (its AVX-512 small-matrix kernels). Two runs of each.
make -j16 GK_CUDA=0 lib cli >/dev/null 2>&1 || echo "build failed"
D=bench/results/xeon-2026-11-22-session7
mkdir -p /tmp/before && tar xf $D/before.tar -C /tmp/before && make -C /tmp/before -j16 GK_CUDA=0 lib >/dev/null 2>&1 || echo "before build failed"
mkdir -p $OUT/logs
OB=$(ldconfig -p | awk '/libopenblas\.so\.0 .*x86-64/ {print $NF; exit}')
S="1x1x1 4x4x4 6x6x6 8x8x2 8x8x8 12x12x12 16x16x16 3x30x10 30x3x10 24x24x24 32x32x32 8x100x8 100x8x8"
export OPENBLAS_NUM_THREADS=1 GEMMKIT_NUM_THREADS=1
for i in 1 2; do
  echo "# run $i: A = tree before (7cf276a), B = this tree"
  timeout 100 build/bin/gk-call-ab /tmp/before/build/lib/libgemmkit.so.0.1.0 build/lib/libgemmkit.so.0.1.0 $S
  echo "# run $i: A = OpenBLAS with OPENBLAS_CORETYPE=SkylakeX, B = this tree"
  OPENBLAS_CORETYPE=SkylakeX timeout 100 build/bin/gk-call-ab cblas:$OB build/lib/libgemmkit.so.0.1.0 $S
done > $OUT/logs/call.txt 2>&1
cat $OUT/logs/call.txt
