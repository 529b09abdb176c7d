#!/bin/sh
# Xeon, 16 threads: the thread floor of 2^17 multiply-adds per thread (this tree) against 2^18
# (ab-floor: the same tree with GK_MIN_MNK_PER_THREAD doubled), 5 interleaved rounds, on the
# small shapes where the floor decides the team size, with OpenBLAS alongside.
make -j16 GK_CUDA=0 lib cli >/dev/null 2>&1 || echo "build failed"
make -C ab-floor -j16 GK_CUDA=0 BUILD=build-baseline cli >/dev/null 2>&1 || echo "baseline build failed"
mkdir -p $OUT/logs
timeout 400 build/bin/gemmkit bench --threads 16 --sizes 48,64,80,96,128,64x64x128,160 --rounds 5 --min-time 0.1 --impls gemmkit,openblas,openblas-best --baseline ab-floor/build-baseline/bin/gemmkit --no-plot --out $OUT/floor > $OUT/logs/floor.log 2>&1
sed -n '/^threads=16,/,$p' $OUT/logs/floor.log
