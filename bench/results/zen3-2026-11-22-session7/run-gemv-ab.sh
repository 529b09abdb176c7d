#!/bin/sh
# GEMV-like calls through `gemmkit run` (1 thread, median of 30 calls, GFLOPS), alternating the
# CLI of the tree before the vector-form changes (OLD, e.g. a worktree of 900bba3 built with
# `make GK_CUDA=0 lib cli`) and this tree's, three rounds. Prints "tree layout ta shape: GFLOPS..."
OLD=${1:?usage: run-gemv-ab.sh OLD_TREE}
for r in 1 2 3; do
  for cli in $OLD/build/bin/gemmkit ./build/bin/gemmkit; do
    for v in "col t 1000 1 1000" "col t 1000 2 1000" "row n 1000 1 1000" "row t 1000 1 1000" \
             "row n 1000 2 1000" "row n 4096 1 4096" "col t 4096 2 4096" "col n 1000 1 1000"; do
      set -- $v
      tag=new; [ "$cli" = "$OLD/build/bin/gemmkit" ] && tag=old
      printf "%s %s ta=%s %sx%sx%s: " $tag $1 $2 $3 $4 $5
      GEMMKIT_NUM_THREADS=1 $cli run --layout $1 --ta $2 -m $3 -n $4 -k $5 --reps 30 |
        sed -n 's/.*; \([0-9.]*\) GFLOPS at the median.*/\1/p'
    done
  done
done | sort | awk '{k=$1" "$2" "$3" "$4; v[k]=v[k]" "$5} END {for (x in v) print x, v[x]}' | sort -k4,4 -k2,3 -k1,1
