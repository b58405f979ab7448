#!/usr/bin/env bash
# fp8 helper, second device call: the epilogue with one named barrier per consumer warpgroup
# (bench/gemm_sm90_walk_fp8_wgbar.tile) against bench/gemm_sm90_walk_fp8.tile, each process timing
# its kernel and cuBLASLt FP8 (fast accumulation on) interleaved; the variant's integer check first
set -u
exec > >(tee -a "${OUT:-/tmp}/fp8b.log") 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv,noheader
timeout 240 make -j16 build/tilepx build/tilepx-run build/gemm_bench >/dev/null 2>&1 || { echo "build failed"; exit 1; }
G=build/gemm_bench
run() { echo "== $*"; timeout "$1" $G "${@:2}" 2>&1 | grep -E '^tilepx |^cublas|during|^check|FAIL|error|^BENCH|^OK|^FAILED'; }
timeout 60 build/tilepx-run bench/gemm_sm90_walk_fp8_wgbar.tile
run 60 --tile bench/gemm_sm90_walk_fp8_wgbar.tile --data int --rounds 0 --set Q=4 --set P=32 4095 4104 1024
for s in "8192 8192 8192" "4096 4096 4096"; do
  for k in bench/gemm_sm90_walk_fp8.tile bench/gemm_sm90_walk_fp8_wgbar.tile; do
    run 150 --tile $k --data random --seed 1 --rounds 60 --set Q=4 --set P=32 $s
  done
done
run 150 --tile bench/gemm_sm90_walk_fp8.tile --data random --seed 1 --rounds 60 --set Q=2 --set P=64 8192 8192 8192
