#!/usr/bin/env bash
# session 15's GEMM candidates (issue 37), on the H200, ~200 s: (1) each new kernel bit for bit on integer
# data at a ragged size (gemm_bench --data int --rounds 0, P = 10 so clusters walk several tiles) against
# cublasGemmEx / cuBLASLt and the host, and its tests/gpu copy through tilepx-run against the CPU reference;
# (2) each timed at the shapes where the pick is under 1.00 of cuBLAS, the incumbent pick in the next process
# (random data, 5 warm-up launches, 30 interleaved rounds; FP8 against cuBLASLt's best of 8). Sections stop
# being started past 190 s, most valuable first. Log in $OUT/s15.log.
#   f16 linear 256x256 TMA-store (the bf16 256x256 walk's f16 -> f32 twin: f16 has no TMA-store linear walk;
#     session 13's sweep 0.956-0.979 at 2048^3, 4096^3, 6144^3, 512 x 8192 x 8192 with the 512x128 linear walk)
#   f16 linear 512x128 TMA-store (the incumbent tile with an asynchronous epilogue)
#   FP8 linear walk with the 2-D walk's per-warpgroup epilogue barriers, and its _ov form (D0 / D1 in two
#     wgmma groups, D0's half of the epilogue under D1's last wgmmas): 0.994 / 0.999 of cuBLASLt FP8 with the
#     2-D walk_fp8_wgbar at 4096^3 / 8192^3
#   f16 ping-pong (bench/gen_pingpong.py's schedule without an epilogue's math: each consumer warpgroup's
#     f32 stores under the other's K loop; alpha/beta on it met 1.00-1.06 of cuBLASLt in session 13)
#   FP8 ping-pong (the same schedule, e4m3 K blocks of 128, bf16 TMA stores): the FP8 K loop runs at twice
#     f16's rate, so the unhidden epilogue of the cooperative walk costs twice the share
#   the chooser's new f16 pick at 512 x 28672 x 8192 (linear 256x224) through --auto
set -u
. bench/gpu_runs/lib.sh
gpu_begin s15.log 190
gpu_build build/gemm_bench build/tilepx-run
F8=(--data random --seed 1 --warmup 5 --rounds 30)
B=bench/gemm_sm90_
echo "== 1. integer data, ragged (bit for bit)"
run f16_256x256 --tile ${B}linear_256x256.tile --set P=10 "${I[@]}" 1000 1004 520
run f16_tmast --tile ${B}linear_tmast.tile --set P=10 "${I[@]}" 1000 1004 520
run fp8_wgbar --tile ${B}linear_fp8_wgbar.tile --set P=10 "${I[@]}" 1000 1032 512
run fp8_wgbar_ov --tile ${B}linear_fp8_wgbar_ov.tile --set P=10 "${I[@]}" 1000 1032 512
run f16_pingpong --tile ${B}pingpong_f16.tile --set P=4 --set Q=3 "${I[@]}" 1000 1004 520
run fp8_pingpong --tile ${B}pingpong_fp8.tile --set P=4 --set Q=3 "${I[@]}" 1000 1032 512
run f16_auto_500x28672 --auto "${I[@]}" 500 28672 520
timeout 60 build/tilepx-run tests/gpu/ragged_gemm_linear_256x256.tile tests/gpu/ragged_gemm_linear_tmast.tile \
  tests/gpu/ragged_gemm_linear_fp8_wgbar.tile tests/gpu/ragged_gemm_linear_fp8_wgbar_ov.tile \
  tests/gpu/ragged_gemm_linear_256x224.tile tests/gpu/ragged_gemm_pingpong_f16.tile \
  tests/gpu/ragged_gemm_pingpong_fp8.tile 2>&1 | grep -E '^(PASS|FAIL)'
echo "== 2. timed, each beside the incumbent pick (session 13 f16 sweep / session 14 FP8, H200, us: tilepx / best cuBLAS)"
echo "   f16 4096^3 191.09/185.95, 6144^3 642.30/625.73, 2048^3 31.07/29.70, 512x8192x8192 96.69/94.22, 8192^3 1689.74/1719.10"
echo "   FP8 walk_fp8_wgbar 4096^3 94.40/93.79, 8192^3 722.24/721.86 (cuBLASLt FP8, best of 8); f16 512x28672x8192 walk_256x128 348.18/325.95"
run f16_4096_256x256 --tile ${B}linear_256x256.tile --set P=132 "${T[@]}" 4096 4096 4096
run f16_4096_512x128 --tile ${B}linear_512x128.tile --set P=132 "${T[@]}" 4096 4096 4096
run f16_4096_tmast --tile ${B}linear_tmast.tile --set P=132 "${T[@]}" 4096 4096 4096
run f16_4096_pingpong --tile ${B}pingpong_f16.tile --set P=8 --set Q=16 "${T[@]}" 4096 4096 4096
run fp8_4096_linear_wgbar --tile ${B}linear_fp8_wgbar.tile --set P=132 "${F8[@]}" 4096 4096 4096
run fp8_4096_walk_wgbar --tile ${B}walk_fp8_wgbar.tile --set Q=4 --set P=32 "${F8[@]}" 4096 4096 4096
run fp8_4096_linear_wgbar_ov --tile ${B}linear_fp8_wgbar_ov.tile --set P=132 "${F8[@]}" 4096 4096 4096
run fp8_4096_pingpong --tile ${B}pingpong_fp8.tile --set P=8 --set Q=16 "${F8[@]}" 4096 4096 4096
run f16_6144_256x256 --tile ${B}linear_256x256.tile --set P=132 "${T[@]}" 6144 6144 6144
run f16_6144_512x128 --tile ${B}linear_512x128.tile --set P=132 "${T[@]}" 6144 6144 6144
run f16_6144_tmast --tile ${B}linear_tmast.tile --set P=132 "${T[@]}" 6144 6144 6144
run f16_6144_pingpong --tile ${B}pingpong_f16.tile --set P=8 --set Q=16 "${T[@]}" 6144 6144 6144
run fp8_8192_linear_wgbar --tile ${B}linear_fp8_wgbar.tile --set P=132 "${F8[@]}" 8192 8192 8192
run fp8_8192_walk_wgbar --tile ${B}walk_fp8_wgbar.tile --set Q=4 --set P=32 "${F8[@]}" 8192 8192 8192
run fp8_8192_linear_wgbar_ov --tile ${B}linear_fp8_wgbar_ov.tile --set P=132 "${F8[@]}" 8192 8192 8192
run fp8_8192_pingpong --tile ${B}pingpong_fp8.tile --set P=8 --set Q=16 "${F8[@]}" 8192 8192 8192
run f16_8192_256x256 --tile ${B}linear_256x256.tile --set P=132 "${T[@]}" 8192 8192 8192
run f16_8192_512x128 --tile ${B}linear_512x128.tile --set P=132 "${T[@]}" 8192 8192 8192
run f16_8192_pingpong --tile ${B}pingpong_f16.tile --set P=8 --set Q=16 "${T[@]}" 8192 8192 8192
run f16_512x28672_auto --auto "${T[@]}" 512 28672 8192
run f16_2048_256x256 --tile ${B}linear_256x256.tile --set P=128 "${T[@]}" 2048 2048 2048
run f16_2048_512x128 --tile ${B}linear_512x128.tile --set P=128 "${T[@]}" 2048 2048 2048
run f16_512x8192_256x256 --tile ${B}linear_256x256.tile --set P=128 "${T[@]}" 512 8192 8192
run f16_512x8192_512x128 --tile ${B}linear_512x128.tile --set P=128 "${T[@]}" 512 8192 8192
run f16_2048x8192_256x256 --tile ${B}linear_256x256.tile --set P=132 "${T[@]}" 2048 8192 8192
run f16_2048x8192_512x128 --tile ${B}linear_512x128.tile --set P=132 "${T[@]}" 2048 8192 8192
run f16_2048_tmast --tile ${B}linear_tmast.tile --set P=128 "${T[@]}" 2048 2048 2048
run f16_8192_tmast --tile ${B}linear_tmast.tile --set P=132 "${T[@]}" 8192 8192 8192
run f16_7168_256x256 --tile ${B}linear_256x256.tile --set P=132 "${T[@]}" 7168 7168 7168
run f16_7168_512x128 --tile ${B}linear_512x128.tile --set P=132 "${T[@]}" 7168 7168 7168
date -u; echo "total ${SECONDS}s"
