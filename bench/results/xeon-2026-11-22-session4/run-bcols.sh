#!/bin/sh
# Xeon run: CPU tests of this tree (half-height edge tiles), then B read in place for a thread's
# rows <= mc (this tree) against rows <= min(mc, 8 MR) (ab-cap, the same tree with that cap),
# 3 interleaved rounds, on shapes whose thread blocks have 8-40 A panels.
make -j16 GK_CUDA=0 lib cli tests >/dev/null 2>&1 || echo "build failed"
make -C ab-cap -j16 GK_CUDA=0 BUILD=build-baseline cli >/dev/null 2>&1 || echo "baseline build failed"
mkdir -p $OUT/logs
progs=""; for f in build/tests/*/test_* tests/*/test_*.sh; do case $f in *cuda*|*ladder*|*.d|*.o) ;; *) progs="$progs $f";; esac; done
GK_TEST_TIMEOUT=140 GK_BUILD=build timeout 200 bash tests/run.sh $progs > $OUT/logs/cpu_tests.log 2>&1; tail -1 $OUT/logs/cpu_tests.log
grep -iE "^fail" $OUT/logs/cpu_tests.log | head
timeout 200 build/bin/gemmkit bench --threads 1 --sizes 256,512,1024,1000,200x2000x2000 --rounds 3 --min-time 0.2 --impls gemmkit,openblas-best --baseline ab-cap/build-baseline/bin/gemmkit --no-plot --out $OUT/bench1 > $OUT/logs/bench1.log 2>&1
sed -n '/^threads=1,/,$p' $OUT/logs/bench1.log
timeout 250 build/bin/gemmkit bench --threads 16 --sizes 1024,2048,4096,1000 --rounds 3 --min-time 0.2 --impls gemmkit,openblas-best --baseline ab-cap/build-baseline/bin/gemmkit --no-plot --out $OUT/bench16 > $OUT/logs/bench16.log 2>&1
sed -n '/^threads=16,/,$p' $OUT/logs/bench16.log
