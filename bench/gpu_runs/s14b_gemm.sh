#!/usr/bin/env bash
# session 14's second GEMM call (issue 37), on the H200, ~150 s: the one-round shapes the first call left
# weak (bf16 2048^3 0.946, 512 x 8192 x 8192 0.973; f16 2048^3 0.956, 512 x 8192 x 8192 0.974), where 64
# cluster tiles run in one round and the K loop streams A and B from L2: the 256 x 256 cluster tile reads
# 64 KiB of A and B per K step for the same MACs as the 512 x 128 tile's 80 KiB. Each against the current
# pick in the same call; then tmast_ov and 256x256 again at the squares (which one the chooser prefers),
# the f16 256 x 224 walk against 512 x 160 at 5120^3 (whether the chooser may take it for f16 512 x 28672),
# and the 128 x 128 walk's TMA-store epilogue at 1024^3. Random data, 5 warm-up, 30 interleaved rounds.
# Sections stop being started past 140 s. Log in $OUT/s14b.log.
set -u
. bench/gpu_runs/lib.sh
gpu_begin s14b.log 140
gpu_build build/gemm_bench build/tilepx-run
B=bench/gemm_sm90_
BF=(--dtype bf16:bf16)
run bf16_2048_256x256 --tile ${B}linear_bf16_256x256.tile "${BF[@]}" --set P=128 "${T[@]}" 2048 2048 2048
run bf16_2048_tmast --tile ${B}linear_bf16_tmast.tile "${BF[@]}" --set P=128 "${T[@]}" 2048 2048 2048
run bf16_2048_tmast_ov --tile ${B}linear_bf16_tmast_ov.tile "${BF[@]}" --set P=128 "${T[@]}" 2048 2048 2048
run bf16_512x8192_256x256 --tile ${B}linear_bf16_256x256.tile "${BF[@]}" --set P=128 "${T[@]}" 512 8192 8192
run bf16_512x8192_tmast --tile ${B}linear_bf16_tmast.tile "${BF[@]}" --set P=128 "${T[@]}" 512 8192 8192
run bf16_512x8192_tmast_ov --tile ${B}linear_bf16_tmast_ov.tile "${BF[@]}" --set P=128 "${T[@]}" 512 8192 8192
run f16_2048_st --tile ${B}walk_st.tile --set P=16 --set Q=8 "${T[@]}" 2048 2048 2048
run f16_2048_linear_512x128 --tile ${B}linear_512x128.tile --set P=128 "${T[@]}" 2048 2048 2048
run f16_512x8192_st --tile ${B}walk_st.tile --set P=4 --set Q=32 "${T[@]}" 512 8192 8192
run f16_512x8192_linear_512x128 --tile ${B}linear_512x128.tile --set P=128 "${T[@]}" 512 8192 8192
run f16_5120_256x224 --tile ${B}linear_256x224.tile --set P=132 "${T[@]}" 5120 5120 5120
run f16_5120_512x160 --tile ${B}linear_512x160.tile --set P=132 "${T[@]}" 5120 5120 5120
run bf16_8192_tmast_ov --tile ${B}linear_bf16_tmast_ov.tile "${BF[@]}" --set P=132 "${T[@]}" 8192 8192 8192
run bf16_8192_256x256 --tile ${B}linear_bf16_256x256.tile "${BF[@]}" --set P=132 "${T[@]}" 8192 8192 8192
run bf16_6144_tmast_ov --tile ${B}linear_bf16_tmast_ov.tile "${BF[@]}" --set P=132 "${T[@]}" 6144 6144 6144
run bf16_6144_256x256 --tile ${B}linear_bf16_256x256.tile "${BF[@]}" --set P=132 "${T[@]}" 6144 6144 6144
run bf16_1024_128x128_tmast --tile ${B}walk_bf16_128x128_tmast.tile "${BF[@]}" --set P=16 --set Q=8 "${T[@]}" 1024 1024 1024
run bf16_2048x8192_256x256 --tile ${B}linear_bf16_256x256.tile "${BF[@]}" --set P=132 "${T[@]}" 2048 8192 8192
run bf16_2048x8192_tmast_ov --tile ${B}linear_bf16_tmast_ov.tile "${BF[@]}" --set P=132 "${T[@]}" 2048 8192 8192
run f16_2048x28672_256x224 --tile ${B}linear_256x224.tile --set P=132 "${T[@]}" 2048 28672 8192
date -u; echo "total ${SECONDS}s"
