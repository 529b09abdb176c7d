#!/bin/sh
# Xeon, 1 thread: small cubes (inside and outside the sweep) on the final tree against
# OpenBLAS as shipped and SkylakeX, 5 interleaved rounds, plus gk-cpu-probe before and after.
make -j16 GK_CUDA=0 lib cli >/dev/null 2>&1 || echo "build failed"
mkdir -p $OUT/logs
build/bin/gk-cpu-probe > $OUT/logs/probe-before.log 2>&1
timeout 300 build/bin/gemmkit bench --threads 1 --sizes 32,48,64,80,96,100,128 --rounds 5 --min-time 0.1 --impls gemmkit,openblas,openblas-best --no-plot --out $OUT/small > $OUT/logs/small.log 2>&1
build/bin/gk-cpu-probe > $OUT/logs/probe-after.log 2>&1
sed -n '/^threads=1,/,$p' $OUT/logs/small.log
grep -E "tile|x" $OUT/logs/probe-after.log | head -20
