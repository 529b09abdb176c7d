#!/bin/sh
# Xeon: the register-tile small path (1ac5e28). CPU tests (AVX-512 small tiles included),
# gk-cpu-probe (its small-vs-packed table), then tiny shapes at 1 thread against OpenBLAS as
# shipped and SkylakeX and against the tree before the change (ab-head = git archive 6445015,
# the "baseline" column), 5 interleaved rounds; 16 threads for the shapes around the size rule.
(make -j16 GK_CUDA=0 lib cli tests >/dev/null 2>&1 || echo "build failed") &
(make -C ab-head -j8 GK_CUDA=0 BUILD=build-baseline cli >/dev/null 2>&1 || echo "baseline build failed") &
wait
mkdir -p $OUT/logs
progs=""; for f in build/tests/*/test_* tests/*/test_*.sh; do case $f in *cuda*|*ladder*|*.d|*.o) ;; *) progs="$progs $f";; esac; done
GK_TEST_TIMEOUT=140 GK_BUILD=build timeout 200 bash tests/run.sh $progs > $OUT/logs/cpu_tests.log 2>&1; tail -1 $OUT/logs/cpu_tests.log
grep -iE "^fail|small" $OUT/logs/cpu_tests.log | head
build/bin/gk-cpu-probe > $OUT/logs/probe.log 2>&1
S=4,6,8,10,12,16,20,24,32,48,64,8x8x2,16x16x2,3x30x10,30x3x10,20x20x2,100x8x8
timeout 200 build/bin/gemmkit bench --threads 1 --sizes $S --rounds 5 --min-time 0.1 --impls gemmkit,openblas,openblas-best --baseline ab-head/build-baseline/bin/gemmkit --no-plot --out $OUT/tiny-t1 > $OUT/logs/tiny-t1.log 2>&1
timeout 90 build/bin/gemmkit bench --threads 16 --sizes 24,32,48,64,96 --rounds 5 --min-time 0.1 --impls gemmkit,openblas,openblas-best --baseline ab-head/build-baseline/bin/gemmkit --no-plot --out $OUT/tiny-t16 > $OUT/logs/tiny-t16.log 2>&1
sed -n '/^small path/,$p' $OUT/logs/probe.log
sed -n '/^threads=1,/,$p' $OUT/logs/tiny-t1.log
sed -n '/^threads=16,/,$p' $OUT/logs/tiny-t16.log
