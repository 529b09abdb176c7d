#!/bin/sh
# Xeon, seventh pass: why a tiny gemmkit call costs more here than on Zen 3. The same per-call
# comparison against OpenBLAS (SkylakeX, as a fixed yardstick) with gemmkit forced to each of its
# kernel families; then, if perf exists, a cpu-clock profile of a loop of 4x4x4 and 1x1x1 calls.
make -j16 GK_CUDA=0 lib cli >/dev/null 2>&1 || echo "build failed"
mkdir -p $OUT/logs
OB=$(ldconfig -p | awk '/libopenblas\.so\.0 .*x86-64/ {print $NF; exit}')
S1="1x1x1 4x4x4 8x8x2 12x12x12 3x30x10 32x32x32"
export OPENBLAS_NUM_THREADS=1 GEMMKIT_NUM_THREADS=1 OPENBLAS_CORETYPE=SkylakeX
for arch in avx512 avx2 generic avx512; do
  echo "# GEMMKIT_ARCH=$arch"
  GEMMKIT_ARCH=$arch timeout 60 build/bin/gk-call-ab cblas:$OB build/lib/libgemmkit.so.0.1.0 $S1
done > $OUT/logs/call-isa.txt 2>&1
cat $OUT/logs/call-isa.txt
cp build/lib/libgemmkit.so.0.1.0 /tmp/libgk-copy.so
if command -v perf >/dev/null 2>&1; then
  for s in 4x4x4 1x1x1; do
    perf record -q -e cpu-clock -o /tmp/p.data build/bin/gk-call-ab build/lib/libgemmkit.so.0.1.0 /tmp/libgk-copy.so $s > /dev/null 2>&1
    perf report -i /tmp/p.data --stdio 2>/dev/null | grep -v "^#" | grep -v "^$" | head -16 > $OUT/logs/perf-$s.txt
    echo "== perf $s"; cat $OUT/logs/perf-$s.txt
  done
else
  echo "no perf on this machine"
fi
