#!/bin/sh
# Xeon, 1 thread: the derived kc (from L1) against GEMMKIT_KC=320 and 448 (each as the
# --baseline column: a wrapper script that sets the variable), 3 interleaved rounds.
make -j16 GK_CUDA=0 lib cli >/dev/null 2>&1 || echo "build failed"
mkdir -p $OUT/logs
build/bin/gemmkit info 2>&1 | grep -iE "kc|mc|nc|cache" > $OUT/logs/info.log
for kc in 320 448; do
  printf '#!/bin/sh\nGEMMKIT_KC=%s exec %s/build/bin/gemmkit "$@"\n' $kc "$PWD" > kc$kc.sh; chmod +x kc$kc.sh
  timeout 280 build/bin/gemmkit bench --threads 1 --sizes 1024,2048,4096 --rounds 3 --min-time 0.2 --impls gemmkit --baseline ./kc$kc.sh --no-plot --out $OUT/kc$kc > $OUT/logs/kc$kc.log 2>&1
  echo "== baseline: GEMMKIT_KC=$kc"; sed -n '/^threads=1,/,$p' $OUT/logs/kc$kc.log
done
cat $OUT/logs/info.log
