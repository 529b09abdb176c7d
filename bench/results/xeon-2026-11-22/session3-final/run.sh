#!/bin/sh
# final Xeon CPU run of session 3 (run on the device with `run`): tests, gk-cpu-probe of this tree and of ab-head (a `git archive` of f85d2e5, before the packing fix), the full benchmark with --rounds 3
make -j16 GK_CUDA=0 lib cli tests >/dev/null 2>&1 || echo "build failed"
make -C ab-head -j16 GK_CUDA=0 BUILD=build-baseline lib >/dev/null 2>&1
gcc -O3 -Iab-head/include -Iab-head/src bench/probe/cpu_probe.c ab-head/build-baseline/lib/libgemmkit.a -fopenmp -lm -o probe-head
mkdir -p $OUT/logs
progs=""; for f in build/tests/*/test_* tests/*/test_*.sh; do case $f in *cuda*|*ladder*|*.d|*.o) ;; *) progs="$progs $f";; esac; done
GK_TEST_TIMEOUT=140 GK_BUILD=build timeout 200 bash tests/run.sh $progs > $OUT/logs/cpu_tests.log 2>&1; tail -1 $OUT/logs/cpu_tests.log
for v in head new head new; do echo "== probe $v"; if [ $v = new ]; then build/bin/gk-cpu-probe; else ./probe-head; fi; done > $OUT/logs/probe.log 2>&1
grep -E "==|64x 64x 64|60x 64|100x100|128x128" $OUT/logs/probe.log
timeout 330 build/bin/gemmkit bench --rounds 3 --min-time 0.2 --impls gemmkit,openblas,openblas-best --no-plot --out $OUT/bench > $OUT/logs/bench.log 2>&1
sed -n '/^threads=1,/,$p' $OUT/logs/bench.log
