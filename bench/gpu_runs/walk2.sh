#!/usr/bin/env bash
# session 8, second call: confirm the 2-D walk at 8192^3, the other sizes (H100)
set -u
exec > >(tee -a ${OUT:-/tmp}/walk2.log) 2>&1
make -j16 all build/tilepx-run build/gemm_bench >/dev/null 2>&1 || { echo build failed; exit 1; }
G=build/gemm_bench
run() { echo "== $*"; timeout 150 $G --data random --seed 1 "$@" 2>&1 | grep -E '^tilepx |^cublas|during|max \|C'; }
s=8192
run --rounds 100 --tile bench/gemm_sm90_walk_bf16_st.tile --set Q=4 --set P=32 $s $s $s
run --rounds 100 --tile bench/gemm_sm90_cluster_bf16_st.tile --set P=4 $s $s $s
run --rounds 100 --tile bench/gemm_sm90_walk_bf16_st.tile --set Q=2 --set P=64 $s $s $s
run --rounds 100 --tile bench/gemm_sm90_walk_n4.tile --set Q=4 --set P=32 $s $s $s
run --rounds 60 --tile bench/gemm_sm90_walk_bf16_st.tile --set Q=4 --set P=32 8192 8192 1024
run --rounds 60 --tile bench/gemm_sm90_cluster_bf16_st.tile --set P=4 8192 8192 1024
run --rounds 60 --tile bench/gemm_sm90_walk_bf16_st.tile --set Q=32 --set P=4 128 8192 8192
run --rounds 60 --tile examples/gemm_sm90_cluster.tile --set P=8 4096 4096 4096
run --rounds 60 --tile examples/gemm_sm90_cluster.tile --set P=8 4095 4097 4096
