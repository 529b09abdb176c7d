#!/bin/sh
# Xeon run: 16-thread final sweep (run-final.sh 16), then a 1-thread A/B of the shapes whose
# 1-thread cells fell against session 3 (64x4096x4096, 512^3) against ab-head (7966d7b).
sh bench/results/xeon-2026-11-22-session4/run-final.sh 16
make -C ab-head -j16 GK_CUDA=0 BUILD=build-baseline cli >/dev/null 2>&1 || echo "baseline build failed"
timeout 150 build/bin/gemmkit bench --threads 1 --sizes 64x4096x4096,512,2048 --rounds 5 --min-time 0.2 --impls gemmkit,openblas-best --baseline ab-head/build-baseline/bin/gemmkit --no-plot --out $OUT/ab1 > $OUT/logs/ab1.log 2>&1
sed -n '/^threads=1,/,$p' $OUT/logs/ab1.log
