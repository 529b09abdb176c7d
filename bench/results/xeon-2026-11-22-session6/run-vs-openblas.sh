#!/bin/sh
# Xeon, seventh pass: per-call time of tiny GEMMs, gemmkit against the system OpenBLAS (as shipped
# and with OPENBLAS_CORETYPE=SkylakeX, its AVX-512 small-matrix kernels), loops of calls through
# both libraries in one process (gk-call-ab), 1 thread.
make -j16 GK_CUDA=0 lib cli >/dev/null 2>&1 || echo "build failed"
mkdir -p $OUT/logs
OB=$(ldconfig -p | awk '/libopenblas\.so\.0 .*x86-64/ {print $NF; exit}')
echo "OpenBLAS: $OB"
S1="1x1x1 4x4x4 6x6x6 8x8x2 8x8x8 10x10x10 12x12x12 16x16x2 16x16x16 3x30x10 30x3x10 20x20x2 24x24x24 32x32x32 8x100x8 100x8x8"
export OPENBLAS_NUM_THREADS=1 GEMMKIT_NUM_THREADS=1
for i in 1 2; do
  echo "# OpenBLAS as shipped (cpuid), run $i"
  timeout 100 build/bin/gk-call-ab cblas:$OB build/lib/libgemmkit.so.0.1.0 $S1
  echo "# OpenBLAS with OPENBLAS_CORETYPE=SkylakeX, run $i"
  OPENBLAS_CORETYPE=SkylakeX timeout 100 build/bin/gk-call-ab cblas:$OB build/lib/libgemmkit.so.0.1.0 $S1
done > $OUT/logs/call-vs-openblas.txt 2>&1
cat $OUT/logs/call-vs-openblas.txt
