#!/bin/sh
# Xeon, seventh pass: the 1-thread large-cube gap. nest_emulate.c runs the packed path's loop nest
# with the AVX-512 kernel on operands already in packed layout, alternated with gk_sgemm; then
# the same at 2048 with other kc and mc for the nest (gk_sgemm keeps its derived kc 208, mc 1248
# in every line: each line pairs the two in alternation).
make -j16 GK_CUDA=0 lib >/dev/null 2>&1 || echo "build failed"
mkdir -p $OUT/logs
gcc -O2 -std=c11 -D_GNU_SOURCE -Iinclude -Isrc bench/results/xeon-2026-11-22-session6/nest_emulate.c \
    build/lib/libgemmkit.a -fopenmp -lm -o /tmp/nest || exit 1
{
  timeout 60 /tmp/nest 1024 9
  timeout 90 /tmp/nest 2048 7
  timeout 120 /tmp/nest 4096 3
  for kc in 128 256 384; do timeout 60 /tmp/nest 2048 5 $kc; done
  for mc in 320 640 2560; do timeout 60 /tmp/nest 2048 5 208 $mc; done
  timeout 60 /tmp/nest 2048 5
} > $OUT/logs/nest.txt 2>&1
cat $OUT/logs/nest.txt
