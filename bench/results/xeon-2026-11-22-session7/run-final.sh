#!/bin/sh
# Final Xeon CPU record of session 7 (the tree as it closes the seventh pass): with $1 = 1 the CPU
# tests first (AVX-512 cases included), then the default sweep of `gemmkit bench` (square
# 64..4096, the skinny shapes, 1000^3) against OpenBLAS as shipped and SkylakeX, 5 interleaved
# rounds, at $1 threads (1 or 16; one call each to stay inside the 10-minute limit).
make -j16 GK_CUDA=0 lib cli tests >/dev/null 2>&1 || echo "build failed"
mkdir -p $OUT/logs
lscpu > $OUT/logs/lscpu-t$1.txt
if [ "$1" = 1 ]; then
  progs=""; for f in build/tests/*/test_* tests/*/test_*.sh; do case $f in *cuda*|*ladder*|*.d|*.o) ;; *) progs="$progs $f";; esac; done
  GK_TEST_TIMEOUT=140 GK_BUILD=build timeout 200 bash tests/run.sh $progs > $OUT/logs/cpu_tests.log 2>&1; tail -1 $OUT/logs/cpu_tests.log
fi
build/bin/gemmkit info > $OUT/logs/info-t$1.log 2>&1
(uptime; date -u) > $OUT/logs/conditions-t$1.txt
timeout 480 build/bin/gemmkit bench --threads $1 --rounds 5 --min-time 0.2 --impls gemmkit,openblas,openblas-best --no-plot --out $OUT/bench > $OUT/logs/bench-t$1.log 2>&1
(uptime; date -u) >> $OUT/logs/conditions-t$1.txt
sed -n "/^threads=$1,/,\$p" $OUT/logs/bench-t$1.log
