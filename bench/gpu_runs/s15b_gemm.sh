#!/usr/bin/env bash
# session 15's second GEMM call (issue 37), on the H200, ~145 s: (1) the ping-pong candidates (not in the
# first call) bit for bit on integer data at ragged sizes and through tilepx-run on their tests/gpu copies;
# (2) the f16 20-shape sweep with the refit chooser (linear 256x256 TMA-store walk where the 512x128 walk
# was, linear 256x224 at 512 x 28672 x 8192), one run; (3) the ping-pongs beside the picks at the squares
# (runs past 140 s are skipped and say so). Log in $OUT/s15b.log (the sweep's own in $OUT/sweep.log).
set -u
. bench/gpu_runs/lib.sh
gpu_begin s15b.log 140
gpu_build all build/gemm_bench build/tilepx-run
F8=(--data random --seed 1 --warmup 5 --rounds 30)
B=bench/gemm_sm90_
echo "== 1. integer data, ragged (bit for bit)"
run f16_pingpong --tile ${B}pingpong_f16.tile --set P=4 --set Q=3 "${I[@]}" 1000 1004 520
run fp8_pingpong --tile ${B}pingpong_fp8.tile --set P=4 --set Q=3 "${I[@]}" 1000 1032 512
timeout 60 build/tilepx-run tests/gpu/ragged_gemm_pingpong_f16.tile tests/gpu/ragged_gemm_pingpong_fp8.tile \
  tests/gpu/ragged_gemm_linear_256x256.tile 2>&1 | grep -E '^(PASS|FAIL)'
echo "== 2. the f16 sweep, the refit chooser's picks"
SWEEP_FIXED=0 bash bench/gpu_runs/sweep.sh --csv "$O/sweep_f16_s15.csv" | sed -n -e '/FAIL/p' -e '/== summary/,$p'
echo "== 3. ping-pong beside the picks (f16: linear 256x256; FP8: walk_fp8_wgbar Q=4 P=32)"
run f16_4096_pingpong --tile ${B}pingpong_f16.tile --set P=8 --set Q=16 "${T[@]}" 4096 4096 4096
run f16_4096_256x256 --tile ${B}linear_256x256.tile --set P=132 "${T[@]}" 4096 4096 4096
run fp8_4096_pingpong --tile ${B}pingpong_fp8.tile --set P=8 --set Q=16 "${F8[@]}" 4096 4096 4096
run fp8_4096_walk_wgbar --tile ${B}walk_fp8_wgbar.tile --set Q=4 --set P=32 "${F8[@]}" 4096 4096 4096
run f16_6144_pingpong --tile ${B}pingpong_f16.tile --set P=8 --set Q=16 "${T[@]}" 6144 6144 6144
run f16_6144_256x256 --tile ${B}linear_256x256.tile --set P=132 "${T[@]}" 6144 6144 6144
run fp8_8192_pingpong --tile ${B}pingpong_fp8.tile --set P=8 --set Q=16 "${F8[@]}" 8192 8192 8192
run fp8_8192_walk_wgbar --tile ${B}walk_fp8_wgbar.tile --set Q=4 --set P=32 "${F8[@]}" 8192 8192 8192
run f16_8192_pingpong --tile ${B}pingpong_f16.tile --set P=8 --set Q=16 "${T[@]}" 8192 8192 8192
run f16_8192_256x256 --tile ${B}linear_256x256.tile --set P=132 "${T[@]}" 8192 8192 8192
date -u; echo "total ${SECONDS}s"
