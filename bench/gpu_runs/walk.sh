#!/usr/bin/env bash
# session 8: the 2-D walk against the column walk (H100), correctness first
set -u
exec > >(tee -a ${OUT:-/tmp}/walk.log) 2>&1
make -j16 all build/tilepx-run build/gemm_bench >/dev/null 2>&1 || { echo build failed; exit 1; }
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
R=build/tilepx-run
for f in bench/gemm_sm90_walk_bf16_st.tile bench/gemm_sm90_walk_n4.tile; do
  for c in "M=4095 N=4104 K=520 P=16 Q=8" "M=300 N=304 K=136 P=2 Q=3" "M=1 N=8 K=8 P=4 Q=2" "M=2000 N=1000 K=64 P=6 Q=5"; do
    timeout 60 $R $(for a in $c; do printf -- '--set %s ' $a; done) $f 2>&1 | tail -1 | sed "s|\$| [$f $c]|"
  done
done
G=build/gemm_bench
run() { timeout 120 $G --data random --seed 1 --rounds ${ROUNDS:-40} "$@" 2>&1 | grep -E '^tilepx |^cublas|during|max \|C'; }
for s in 8192 4096; do
  P=4; [ $s = 4096 ] && P=8
  echo "== $s^3 bf16 column walk (cluster_bf16_st P=$P)"; run --tile bench/gemm_sm90_cluster_bf16_st.tile --set P=$P $s $s $s
  for qp in "8 16" "16 8" "4 32"; do set -- $qp
    echo "== $s^3 bf16 2-D walk Q=$1 P=$2"; run --tile bench/gemm_sm90_walk_bf16_st.tile --set Q=$1 --set P=$2 $s $s $s
  done
  echo "== $s^3 f16->f32 column walk (cluster_n4 P=$P)"; run --tile bench/gemm_sm90_cluster_n4.tile --set P=$P $s $s $s
  echo "== $s^3 f16->f32 2-D walk Q=8 P=16"; run --tile bench/gemm_sm90_walk_n4.tile --set Q=8 --set P=16 $s $s $s
done
