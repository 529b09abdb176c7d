#!/bin/sh
# Xeon CPU run of session 4 (on the device with `run`): CPU tests of this tree (AVX-512 cases
# included), gk-cpu-probe of this tree and of ab-head (a `git archive` of 7966d7b, before the
# A-in-place and narrow-edge kernels), then small shapes at 1 and 16 threads against OpenBLAS
# and against the ab-head build, 5 interleaved rounds.
make -j16 GK_CUDA=0 lib cli tests >/dev/null 2>&1 || echo "build failed"
make -C ab-head -j16 GK_CUDA=0 BUILD=build-baseline cli >/dev/null 2>&1 || echo "baseline build failed"
mkdir -p $OUT/logs
progs=""; for f in build/tests/*/test_* tests/*/test_*.sh; do case $f in *cuda*|*ladder*|*.d|*.o) ;; *) progs="$progs $f";; esac; done
GK_TEST_TIMEOUT=140 GK_BUILD=build timeout 200 bash tests/run.sh $progs > $OUT/logs/cpu_tests.log 2>&1; tail -1 $OUT/logs/cpu_tests.log
grep -E "^(FAIL|fail)" $OUT/logs/cpu_tests.log | head
for v in head new head new; do echo "== probe $v"; if [ $v = new ]; then build/bin/gk-cpu-probe; else ab-head/build-baseline/bin/gk-cpu-probe; fi; done > $OUT/logs/probe.log 2>&1
grep -E "==|64x 64x 64|60x 64|100x100|128x128" $OUT/logs/probe.log
timeout ${GK_BENCH_BOX:-300} build/bin/gemmkit bench --threads ${GK_THREADS:-1,16} --sizes ${GK_SIZES:-32,48,64,80,96,100,128,192,256} --rounds 5 --min-time 0.1 --impls gemmkit,openblas,openblas-best --baseline ab-head/build-baseline/bin/gemmkit --no-plot --out $OUT/bench > $OUT/logs/bench.log 2>&1
sed -n '/^threads=1,/,$p' $OUT/logs/bench.log
