#!/bin/sh
# Xeon, session 7: the axpy form with four columns of A per pass over C and two columns of C at
# once, against abe4028 (before.tar, a `git archive` carried for the run and not committed):
# gk-call-ab, column-major NN GEMV shapes, 1 thread, two runs.
make -j16 GK_CUDA=0 lib cli >/dev/null 2>&1 || echo "build failed"
D=bench/results/xeon-2026-11-22-session7
mkdir -p /tmp/before && tar xf $D/before.tar -C /tmp/before && make -C /tmp/before -j16 GK_CUDA=0 lib >/dev/null 2>&1 || echo "before build failed"
mkdir -p $OUT/logs
S="1000x1x1000 1000x2x1000 300x2x300 300x1x300 4096x1x4096 4096x2x4096 100x2x2000 2000x1x100 1000x1x10"
export GEMMKIT_NUM_THREADS=1
for i in 1 2; do
  echo "# run $i: A = abe4028, B = this tree"
  timeout 200 build/bin/gk-call-ab /tmp/before/build/lib/libgemmkit.so.0.1.0 build/lib/libgemmkit.so.0.1.0 $S
done > $OUT/logs/axpy-ab.txt 2>&1
cat $OUT/logs/axpy-ab.txt
