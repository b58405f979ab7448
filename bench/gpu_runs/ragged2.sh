#!/usr/bin/env bash
# issue 27, second call: the 512 x 128 kernel's window at 8192^3 (Q=16, P=8: the window that reads the fewest rows
# of A and B per round, 16 strips x 4 bands) against the 256 x 256 baseline, 100 rounds, and the 4096^3 / ragged pair again
set -u
exec > >(tee -a ${OUT:-/tmp}/ragged2.log) 2>&1
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
make -j16 build/tilepx build/gemm_bench >/dev/null 2>&1 || { echo build failed; exit 1; }
N512=bench/gemm_sm90_walk_512x128.tile
B512=bench/gemm_sm90_walk_bf16_512x128.tile
BASE=bench/gemm_sm90_walk_st.tile
G=build/gemm_bench
run() { echo "== $*"; timeout 150 $G --data random --seed 1 "$@" 2>&1 | grep -E '^tilepx |^cublas|during|max \|C|FAIL|error'; }
run --rounds 100 --tile $BASE --set Q=4 --set P=32 8192 8192 8192
run --rounds 100 --tile $N512 --set Q=16 --set P=8 8192 8192 8192
run --rounds 100 --tile $N512 --set Q=33 --set P=4 8192 8192 8192
run --rounds 100 --tile $B512 --set Q=16 --set P=8 8192 8192 8192
for s in "4096 4096 4096" "4095 4097 4096"; do
  run --rounds 60 --tile $BASE --set Q=4 --set P=32 $s
  run --rounds 60 --tile $N512 --set Q=33 --set P=4 $s
done
run --rounds 60 --tile $N512 --set Q=16 --set P=8 4096 4096 4096
