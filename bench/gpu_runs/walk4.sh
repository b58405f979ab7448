#!/usr/bin/env bash
# session 8, fourth call: the N-major B and the any-N bf16 variants (H100)
set -u
exec > >(tee -a ${OUT:-/tmp}/walk4.log) 2>&1
make -j16 all build/gemm_bench >/dev/null 2>&1 || { echo build failed; exit 1; }
nvidia-smi --query-gpu=name --format=csv,noheader
G=build/gemm_bench
run() { echo "== $*"; timeout 150 $G "$@" 2>&1 | grep -E '^tilepx |^cublas|during|^check tilepx|FAIL|error'; }
run --tile bench/gemm_sm90_walk_bkn_st.tile --data int --rounds 0 --set Q=4 --set P=32 4095 4104 520
run --tile bench/gemm_sm90_walk_bf16_any.tile --data int --rounds 0 --set Q=4 --set P=32 4095 4097 520
for s in "4096 4096 4096" "8192 8192 8192" "4095 4104 4096"; do
  run --tile bench/gemm_sm90_walk_bkn_st.tile --data random --seed 1 --rounds 60 --set Q=4 --set P=32 $s
done
for s in "4096 4096 4096" "8192 8192 8192" "4095 4097 4096"; do
  run --tile bench/gemm_sm90_walk_bf16_any.tile --data random --seed 1 --rounds 60 --set Q=4 --set P=32 $s
done
