#!/bin/sh
# Xeon: the CPU tests of this tree (AVX-512 cases included), nothing else.
make -j16 GK_CUDA=0 lib cli tests >/dev/null 2>&1 || echo "build failed"
mkdir -p $OUT/logs
progs=""; for f in build/tests/*/test_* tests/*/test_*.sh; do case $f in *cuda*|*ladder*|*.d|*.o) ;; *) progs="$progs $f";; esac; done
GK_TEST_TIMEOUT=140 GK_BUILD=build timeout 200 bash tests/run.sh $progs > $OUT/logs/cpu_tests.log 2>&1; tail -1 $OUT/logs/cpu_tests.log
grep -iE "^fail" $OUT/logs/cpu_tests.log | head
