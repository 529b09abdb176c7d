#!/bin/sh
# Xeon, session 7: the swapped vector form (row-major GEMV) and the fused dot products. CPU tests
# of this tree, then bench/results/zen3-2026-11-22-session7/run-gemv-ab.sh against 900bba3 (the
# tree before; before.tar, a `git archive` carried for the run and not committed), 1 thread.
make -j16 GK_CUDA=0 lib cli tests >/dev/null 2>&1 || echo "build failed"
D=bench/results/xeon-2026-11-22-session7
mkdir -p /tmp/before && tar xf $D/before.tar -C /tmp/before && make -C /tmp/before -j16 GK_CUDA=0 lib cli >/dev/null 2>&1 || echo "before build failed"
mkdir -p $OUT/logs
progs=""; for f in build/tests/*/test_* tests/*/test_*.sh; do case $f in *cuda*|*ladder*|*.d|*.o) ;; *) progs="$progs $f";; esac; done
GK_TEST_TIMEOUT=140 GK_BUILD=build timeout 200 bash tests/run.sh $progs > $OUT/logs/cpu_tests-gemv2.log 2>&1; tail -1 $OUT/logs/cpu_tests-gemv2.log
grep -E "swapped|gemv_like|^FAIL" $OUT/logs/cpu_tests-gemv2.log
sh bench/results/zen3-2026-11-22-session7/run-gemv-ab.sh /tmp/before > $OUT/logs/gemv-run-ab.txt 2>&1
cat $OUT/logs/gemv-run-ab.txt
