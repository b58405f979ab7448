#!/usr/bin/env bash
# issue 27, third call: 8192^3 repeated (each kernel in two processes, 200 rounds) for the 512 x 128 kernels against
# the 256 x 256 baseline, and the interleaved-wgmma variant at 4096^3 and the ragged size
set -u
exec > >(tee -a ${OUT:-/tmp}/ragged3.log) 2>&1
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
make -j16 build/tilepx build/tilepx-run build/gemm_bench >/dev/null 2>&1 || { echo build failed; exit 1; }
N512=bench/gemm_sm90_walk_512x128.tile
I512=bench/gemm_sm90_walk_512x128i.tile
BASE=bench/gemm_sm90_walk_st.tile
G=build/gemm_bench
timeout 60 build/tilepx-run $I512 2>&1 | tail -1
for s in "4095 4097 4096" "129 7 8"; do
  echo "-- $I512 $s"; timeout 120 $G --tile $I512 --data int --rounds 0 --set Q=33 --set P=4 $s 2>&1 | grep -E "^check|FAIL|error" | head -4
done
run() { echo "== $*"; timeout 150 $G --data random --seed 1 "$@" 2>&1 | grep -E '^tilepx |^cublas|during|max \|C|FAIL|error'; }
for i in 1 2; do
  run --rounds 200 --tile $BASE --set Q=4 --set P=32 8192 8192 8192
  run --rounds 200 --tile $N512 --set Q=16 --set P=8 8192 8192 8192
  run --rounds 200 --tile $I512 --set Q=16 --set P=8 8192 8192 8192
done
for s in "4096 4096 4096" "4095 4097 4096"; do
  run --rounds 60 --tile $N512 --set Q=33 --set P=4 $s
  run --rounds 60 --tile $I512 --set Q=33 --set P=4 $s
done
