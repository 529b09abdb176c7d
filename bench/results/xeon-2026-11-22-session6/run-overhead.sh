#!/bin/sh
# Xeon, seventh pass (per-call overhead): the CPU tests; gk-call-ab, loops of tiny calls through
# the tree before (ab-base = git archive 48602c7) and this tree in one process, 1 thread; then the
# tiny shapes at 1 thread against OpenBLAS (as shipped and SkylakeX) and the tree before, 5 rounds.
(make -j16 GK_CUDA=0 lib cli tests >/dev/null 2>&1 || echo "build failed") &
(make -C ab-base -j8 GK_CUDA=0 BUILD=build-baseline lib cli >/dev/null 2>&1 || echo "baseline build failed") &
wait
mkdir -p $OUT/logs
lscpu | grep -E "Model name|^CPU\(s\)|MHz" > $OUT/logs/lscpu.txt
progs=""; for f in build/tests/*/test_* tests/*/test_*.sh; do case $f in *cuda*|*ladder*|*.d|*.o) ;; *) progs="$progs $f";; esac; done
GK_TEST_TIMEOUT=140 GK_BUILD=build timeout 200 bash tests/run.sh $progs > $OUT/logs/cpu_tests.log 2>&1; tail -1 $OUT/logs/cpu_tests.log
grep -iE "^fail" $OUT/logs/cpu_tests.log | head
S1="1x1x1 4x4x4 6x6x6 8x8x2 8x8x8 10x10x10 12x12x12 16x16x2 16x16x16 3x30x10 30x3x10 20x20x2 24x24x24 32x32x32 8x100x8 100x8x8"
for i in 1 2; do
  GEMMKIT_NUM_THREADS=1 timeout 100 build/bin/gk-call-ab ab-base/build-baseline/lib/libgemmkit.so.0.1.0 build/lib/libgemmkit.so.0.1.0 $S1
done > $OUT/logs/call-ab.txt 2>&1
S=4,6,8,10,12,16,20,24,32,8x8x2,16x16x2,3x30x10,30x3x10,20x20x2,100x8x8,8x100x8
timeout 240 build/bin/gemmkit bench --threads 1 --sizes $S --rounds 5 --min-time 0.1 --impls gemmkit,openblas,openblas-best --baseline ab-base/build-baseline/bin/gemmkit --no-plot --out $OUT/tiny-t1 > $OUT/logs/tiny-t1.log 2>&1
cat $OUT/logs/call-ab.txt
sed -n '/^threads=1,/,$p' $OUT/logs/tiny-t1.log
