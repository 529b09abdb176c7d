#!/bin/sh
# Xeon, session 7: the rule that sends GEMV-like calls with small plain A to the register tiles.
# CPU tests of this tree (AVX-512 cases included), then gk-call-ab, 1 thread, this tree against
# the tree before the rule (before.tar, a `git archive` of HEAD before the change, carried for
# the run and not committed), two runs.
make -j16 GK_CUDA=0 lib cli tests >/dev/null 2>&1 || echo "build failed"
D=bench/results/xeon-2026-11-22-session7
mkdir -p /tmp/before && tar xf $D/before.tar -C /tmp/before && make -C /tmp/before -j16 GK_CUDA=0 lib >/dev/null 2>&1 || echo "before build failed"
mkdir -p $OUT/logs
progs=""; for f in build/tests/*/test_* tests/*/test_*.sh; do case $f in *cuda*|*ladder*|*.d|*.o) ;; *) progs="$progs $f";; esac; done
GK_TEST_TIMEOUT=140 GK_BUILD=build timeout 200 bash tests/run.sh $progs > $OUT/logs/cpu_tests.log 2>&1; tail -1 $OUT/logs/cpu_tests.log
grep -E "gemv_like|^FAIL" $OUT/logs/cpu_tests.log
S="1x1x1 4x1x4 8x2x8 32x2x32 1x1x64 1x2x1000 16x2x512 32x1x20000 64x1x64 100x1x100 128x2x128 200x1x50 1000x1x10 256x1x256 64x1x4096 1000x1x1000 2000x2x500 8x8x8"
export GEMMKIT_NUM_THREADS=1
for i in 1 2; do
  echo "# run $i: A = tree before the rule, B = this tree"
  timeout 120 build/bin/gk-call-ab /tmp/before/build/lib/libgemmkit.so.0.1.0 build/lib/libgemmkit.so.0.1.0 $S
done > $OUT/logs/gemv-tiles-ab.txt 2>&1
cat $OUT/logs/gemv-tiles-ab.txt
