#!/bin/sh
# Xeon: the AVX-512 kernel's C prefetch. The tree here spreads a tile's prefetchw over the first
# 12 iterations of its k loop (one column of C per 4 steps) instead of issuing all 36 before it;
# ab-head (git archive e3ccf09) issues them all at once, ab-nopf (the same with the C prefetch
# removed) none. CPU tests first (the AVX-512 kernels run only here), then 1 and 16 threads,
# 5 interleaved rounds, against OpenBLAS SkylakeX and each variant in turn as the baseline.
(make -j16 GK_CUDA=0 lib cli tests >/dev/null 2>&1 || echo "build failed") &
(make -C ab-head -j4 GK_CUDA=0 BUILD=build-baseline cli >/dev/null 2>&1 || echo "head build failed") &
(make -C ab-nopf -j4 GK_CUDA=0 BUILD=build-baseline cli >/dev/null 2>&1 || echo "nopf build failed") &
wait
mkdir -p $OUT/logs
progs=""; for f in build/tests/*/test_* tests/*/test_*.sh; do case $f in *cuda*|*ladder*|*.d|*.o) ;; *) progs="$progs $f";; esac; done
GK_TEST_TIMEOUT=140 GK_BUILD=build timeout 200 bash tests/run.sh $progs > $OUT/logs/cpu_tests.log 2>&1; tail -1 $OUT/logs/cpu_tests.log
if grep -qiE "^fail" $OUT/logs/cpu_tests.log; then grep -iE "^fail" $OUT/logs/cpu_tests.log | head; exit 1; fi
B="--rounds 5 --min-time 0.2 --impls gemmkit,openblas-best --no-plot"
timeout 200 build/bin/gemmkit bench --threads 1 --sizes 1024,2048,4096,2000,4096x4096x64 $B --baseline ab-head/build-baseline/bin/gemmkit --out $OUT/t1-head > $OUT/logs/t1-head.log 2>&1
timeout 150 build/bin/gemmkit bench --threads 1 --sizes 1024,2048,4096,2000 $B --baseline ab-nopf/build-baseline/bin/gemmkit --out $OUT/t1-nopf > $OUT/logs/t1-nopf.log 2>&1
timeout 100 build/bin/gemmkit bench --threads 16 --sizes 1024,2048,4096,4096x4096x64 $B --baseline ab-head/build-baseline/bin/gemmkit --out $OUT/t16-head > $OUT/logs/t16-head.log 2>&1
for f in t1-head t1-nopf t16-head; do sed -n '/^threads=/,$p' $OUT/logs/$f.log; done
