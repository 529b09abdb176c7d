#!/bin/sh
# Xeon, session 7, last library state: CPU tests, then gk-call-ab against 900bba3 (before.tar, a
# `git archive` carried for the run and not committed) on GEMV-like shapes in several layouts
# and transpositions (MxNxK:[r]XY), 1 thread, two runs.
make -j16 GK_CUDA=0 lib cli tests >/dev/null 2>&1 || echo "build failed"
D=bench/results/xeon-2026-11-22-session7
mkdir -p /tmp/before && tar xf $D/before.tar -C /tmp/before && make -C /tmp/before -j16 GK_CUDA=0 lib >/dev/null 2>&1 || echo "before build failed"
mkdir -p $OUT/logs
progs=""; for f in build/tests/*/test_* tests/*/test_*.sh; do case $f in *cuda*|*ladder*|*.d|*.o) ;; *) progs="$progs $f";; esac; done
GK_TEST_TIMEOUT=140 GK_BUILD=build timeout 200 bash tests/run.sh $progs > $OUT/logs/cpu_tests-final.log 2>&1; tail -1 $OUT/logs/cpu_tests-final.log
grep -E "^FAIL" $OUT/logs/cpu_tests-final.log
S="1000x1x1000 1000x2x1000 4096x1x4096 1000x1x1000:TN 1000x2x1000:TN 4096x2x4096:TN 1000x1x1000:rNN 1000x1x1000:rTN 1000x2x1000:rNN 1x4096x4096 8x1x8:TN 64x1x64:TN 32x2x32:TN 100x2x16:TN 16x2x512 1x2x1000"
export GEMMKIT_NUM_THREADS=1
for i in 1 2; do
  echo "# run $i: A = 900bba3, B = this tree"
  timeout 200 build/bin/gk-call-ab /tmp/before/build/lib/libgemmkit.so.0.1.0 build/lib/libgemmkit.so.0.1.0 $S
done > $OUT/logs/gemv-final-ab.txt 2>&1
cat $OUT/logs/gemv-final-ab.txt
