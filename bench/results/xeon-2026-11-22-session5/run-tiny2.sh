#!/bin/sh
# Xeon, after 990cb58 (each register tile reads all its C before writing any): the CPU tests,
# gk-cpu-probe's small-vs-packed table and the tiny shapes at 1 thread against OpenBLAS and the
# tree before the small-path change (ab-head = git archive 6445015), 5 rounds; then a check of
# one hypothesis for the 1-thread large cubes: 2048^3 with leading dimensions 2048 (C's tile
# columns 8 KiB apart, all in the same L1 sets) against 2064, alternated four times.
(make -j16 GK_CUDA=0 lib cli tests >/dev/null 2>&1 || echo "build failed") &
(make -C ab-head -j8 GK_CUDA=0 BUILD=build-baseline cli >/dev/null 2>&1 || echo "baseline build failed") &
wait
mkdir -p $OUT/logs
progs=""; for f in build/tests/*/test_* tests/*/test_*.sh; do case $f in *cuda*|*ladder*|*.d|*.o) ;; *) progs="$progs $f";; esac; done
GK_TEST_TIMEOUT=140 GK_BUILD=build timeout 200 bash tests/run.sh $progs > $OUT/logs/cpu_tests.log 2>&1; tail -1 $OUT/logs/cpu_tests.log
grep -iE "^fail" $OUT/logs/cpu_tests.log | head
build/bin/gk-cpu-probe > $OUT/logs/probe.log 2>&1
S=4,6,8,10,12,16,20,24,32,48,64,8x8x2,16x16x2,3x30x10,30x3x10,20x20x2,100x8x8,8x100x8
timeout 200 build/bin/gemmkit bench --threads 1 --sizes $S --rounds 5 --min-time 0.1 --impls gemmkit,openblas,openblas-best --baseline ab-head/build-baseline/bin/gemmkit --no-plot --out $OUT/tiny-t1 > $OUT/logs/tiny-t1.log 2>&1
for i in 1 2 3 4; do
  for ld in 2048 2064; do
    build/bin/gemmkit run -m 2048 -n 2048 -k 2048 --threads 1 --lda $ld --ldb $ld --ldc $ld --reps 5 2>&1 | grep time: | sed "s/^/ld=$ld /"
  done
done > $OUT/logs/ld-2048.log
sed -n '/^small path/,$p' $OUT/logs/probe.log
sed -n '/^threads=1,/,$p' $OUT/logs/tiny-t1.log
cat $OUT/logs/ld-2048.log
