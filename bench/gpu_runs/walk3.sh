#!/usr/bin/env bash
# session 8, third call: the any-N kernels with the 2-D walk, 4096^3 against the ragged size (H100)
set -u
exec > >(tee -a ${OUT:-/tmp}/walk3.log) 2>&1
make -j16 all build/tilepx-run build/gemm_bench >/dev/null 2>&1 || { echo build failed; exit 1; }
for c in "M=300 N=301 K=136 P=2 Q=3" "M=1 N=1 K=8 P=4 Q=2" "M=2000 N=999 K=64 P=6 Q=5" "M=700 N=1303 K=520 P=4 Q=2"; do
  for f in bench/gemm_sm90_walk_st.tile examples/gemm_sm90_cluster.tile; do
    timeout 60 build/tilepx-run $(for a in $c; do printf -- '--set %s ' $a; done) $f 2>&1 | tail -1 | sed "s|\$| [$f $c]|"
  done
done
G=build/gemm_bench
run() { echo "== $*"; timeout 150 $G --data random --seed 1 "$@" 2>&1 | grep -E '^tilepx |^cublas|during|max \|C'; }
for f in bench/gemm_sm90_walk_st.tile examples/gemm_sm90_cluster.tile; do
  for s in "4096 4096 4096" "4095 4097 4096" "8192 8192 8192" "8192 8192 1024"; do
    run --rounds 60 --tile $f --set Q=4 --set P=32 $s
  done
done
run --rounds 60 --tile bench/gemm_sm90_walk_n4.tile --set Q=4 --set P=32 4096 4096 4096
