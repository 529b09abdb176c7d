#!/bin/sh
# Final Xeon CPU benchmark of session 4: the default sweep of `gemmkit bench` (square 64..4096,
# the skinny shapes, 1000^3) against OpenBLAS as shipped and SkylakeX, 5 interleaved rounds, at
# the thread count given as $1 (1 or 16; one call each to stay inside the 10-minute limit).
make -j16 GK_CUDA=0 lib cli >/dev/null 2>&1 || echo "build failed"
mkdir -p $OUT/logs
build/bin/gemmkit info > $OUT/logs/info-t$1.log 2>&1
timeout 560 build/bin/gemmkit bench --threads $1 --rounds 5 --min-time 0.2 --impls gemmkit,openblas,openblas-best --no-plot --out $OUT/bench > $OUT/logs/bench-t$1.log 2>&1
sed -n "/^threads=$1,/,\$p" $OUT/logs/bench-t$1.log
