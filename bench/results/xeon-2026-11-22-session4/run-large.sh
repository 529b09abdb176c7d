#!/bin/sh
# Xeon, 1 thread, large squares: power-of-two against nearby sizes (C and A columns 16 KB apart
# alias in L1), with OpenBLAS SkylakeX alongside; and mc = 624 against the derived 1248 (the
# baseline column, GEMMKIT_MC through a wrapper), 3 interleaved rounds.
make -j16 GK_CUDA=0 lib cli >/dev/null 2>&1 || echo "build failed"
mkdir -p $OUT/logs
printf '#!/bin/sh\nGEMMKIT_MC=624 exec %s/build/bin/gemmkit "$@"\n' "$PWD" > mc624.sh; chmod +x mc624.sh
timeout 500 build/bin/gemmkit bench --threads 1 --sizes 2000,2048,4000,4096 --rounds 3 --min-time 0.2 --impls gemmkit,openblas-best --baseline ./mc624.sh --no-plot --out $OUT/large > $OUT/logs/large.log 2>&1
sed -n '/^threads=1,/,$p' $OUT/logs/large.log
