#!/usr/bin/env bash
# session 14's GEMM candidates (issue 37), on the H200, ~190 s: (1) every new kernel bit-exact on integer
# data at ragged sizes against cublasGemmEx / cuBLASLt and the host (gemm_bench --data int --rounds 0) and
# through tilepx-run against the CPU reference (their tests/gpu copies); (2) each timed at the shapes it
# was made for against cuBLAS in the same process (random data, 5 warm-up launches, 30 interleaved
# rounds), with the kernel the chooser picks there now in the same process for comparison. Sections stop
# being started past 180 s. Log in $OUT/s14.log.
#   bf16 128x64 TMA-store (1024^3: the 128x64 kernel's 2-byte stores; 0.892 of cuBLAS in session 13)
#   bf16 256x224 and 256x128 TMA-store (512 x 28672 x 8192: 0.926 with 512x160; 2048^3 0.946, 512 x 8192^2 0.973)
#   f16 256x224 (f16 512 x 28672 x 8192: 0.943 with the 256x128 walk)
#   bf16 128x128 walk TMA-store (128 x 8192 x 8192: 0.949 with the 2-byte stores of the 128x128 walk)
#   bf16 256x256 TMA-store (one m64n256 accumulator per warpgroup: the squares, 0.975-0.98 with the 512x128 tmast)
#   bf16 512x128 TMA-store with D0/D1 in two wgmma groups (D0's epilogue under D1's last wgmma), the squares
#   FP8 linear TMA-store 256x256 (4096^3, 8192^3 against cuBLASLt FP8 and the 2-D walk_fp8_wgbar)
set -u
. bench/gpu_runs/lib.sh
gpu_begin s14.log 180
gpu_build build/gemm_bench build/tilepx-run
B=bench/gemm_sm90_
echo "== 1. integer data, ragged (bit for bit)"
run bf16_128x64_tmast --tile ${B}linear_bf16_128x64_tmast.tile --dtype bf16:bf16 --set P=10 "${I[@]}" 1000 1008 520
run bf16_256x128 --tile ${B}linear_bf16_256x128.tile --dtype bf16:bf16 --set P=10 "${I[@]}" 1000 1008 520
run bf16_256x224 --tile ${B}linear_bf16_256x224.tile --dtype bf16:bf16 --set P=10 "${I[@]}" 1000 1008 520
run f16_256x224 --tile ${B}linear_256x224.tile --set P=10 "${I[@]}" 1000 1001 520
run bf16_128x128_tmast --tile ${B}walk_bf16_128x128_tmast.tile --dtype bf16:bf16 --set P=4 --set Q=3 "${I[@]}" 1000 1008 520
run bf16_256x256 --tile ${B}linear_bf16_256x256.tile --dtype bf16:bf16 --set P=10 "${I[@]}" 1000 1008 520
run bf16_tmast_ov --tile ${B}linear_bf16_tmast_ov.tile --dtype bf16:bf16 --set P=10 "${I[@]}" 1000 1008 520
run fp8_tmast --tile ${B}linear_fp8_tmast.tile --dtype e4m3:bf16 --set P=10 "${I[@]}" 1000 1032 512
timeout 60 build/tilepx-run tests/gpu/ragged_gemm_linear_bf16_128x64_tmast.tile tests/gpu/ragged_gemm_linear_bf16_256x128.tile \
  tests/gpu/ragged_gemm_linear_bf16_256x224.tile tests/gpu/ragged_gemm_linear_256x224.tile tests/gpu/ragged_gemm_linear_fp8_tmast.tile \
  tests/gpu/ragged_gemm_walk_bf16_128x128_tmast.tile tests/gpu/ragged_gemm_linear_bf16_256x256.tile \
  tests/gpu/ragged_gemm_linear_bf16_tmast_ov.tile 2>&1 |
  grep -E '^(PASS|FAIL)'
echo "== 2. timed at their shapes (session 13 sweep, H200: bf16 1024^3 128x64 0.892, 512x28672x8192 512x160 321.95 us"
echo "   vs cuBLAS 298.05, 2048^3 tmast 28.27 vs 26.75, 512x8192x8192 tmast 90.70 vs 88.24; f16 512x28672x8192 walk 256x128 348.18 vs 325.95)"
BF=(--dtype bf16:bf16)
run bf16_1024_128x64_tmast --tile ${B}linear_bf16_128x64_tmast.tile "${BF[@]}" --set P=128 "${T[@]}" 1024 1024 1024
run bf16_512x28672_256x224 --tile ${B}linear_bf16_256x224.tile "${BF[@]}" --set P=132 "${T[@]}" 512 28672 8192
run bf16_512x28672_256x128 --tile ${B}linear_bf16_256x128.tile "${BF[@]}" --set P=132 "${T[@]}" 512 28672 8192
run f16_512x28672_256x224 --tile ${B}linear_256x224.tile --set P=132 "${T[@]}" 512 28672 8192
F8=(--data random --seed 1 --warmup 5 --rounds 30)
run fp8_4096_tmast --tile ${B}linear_fp8_tmast.tile --set P=132 "${F8[@]}" 4096 4096 4096
run fp8_4096_wgbar --tile ${B}walk_fp8_wgbar.tile --set Q=4 --set P=32 "${F8[@]}" 4096 4096 4096
run fp8_8192_tmast --tile ${B}linear_fp8_tmast.tile --set P=132 "${F8[@]}" 8192 8192 8192
run fp8_8192_wgbar --tile ${B}walk_fp8_wgbar.tile --set Q=4 --set P=32 "${F8[@]}" 8192 8192 8192
run bf16_4096_256x256 --tile ${B}linear_bf16_256x256.tile "${BF[@]}" --set P=132 "${T[@]}" 4096 4096 4096
run bf16_4096_tmast --tile ${B}linear_bf16_tmast.tile "${BF[@]}" --set P=132 "${T[@]}" 4096 4096 4096
run bf16_4096_tmast_ov --tile ${B}linear_bf16_tmast_ov.tile "${BF[@]}" --set P=132 "${T[@]}" 4096 4096 4096
run bf16_2048_256x128 --tile ${B}linear_bf16_256x128.tile "${BF[@]}" --set P=132 "${T[@]}" 2048 2048 2048
run bf16_128x8192_128x128_tmast --tile ${B}walk_bf16_128x128_tmast.tile "${BF[@]}" --set P=2 --set Q=64 "${T[@]}" 128 8192 8192
run bf16_128x8192_128x128 --tile ${B}walk_bf16_128x128.tile "${BF[@]}" --set P=2 --set Q=64 "${T[@]}" 128 8192 8192
run bf16_512x8192_256x128 --tile ${B}linear_bf16_256x128.tile "${BF[@]}" --set P=132 "${T[@]}" 512 8192 8192
run bf16_6144_256x256 --tile ${B}linear_bf16_256x256.tile "${BF[@]}" --set P=132 "${T[@]}" 6144 6144 6144
run bf16_6144_tmast --tile ${B}linear_bf16_tmast.tile "${BF[@]}" --set P=132 "${T[@]}" 6144 6144 6144
run bf16_6144_tmast_ov --tile ${B}linear_bf16_tmast_ov.tile "${BF[@]}" --set P=132 "${T[@]}" 6144 6144 6144
run bf16_8192_256x256 --tile ${B}linear_bf16_256x256.tile "${BF[@]}" --set P=132 "${T[@]}" 8192 8192 8192
run bf16_2048_128x64_tmast --tile ${B}linear_bf16_128x64_tmast.tile "${BF[@]}" --set P=132 "${T[@]}" 2048 2048 2048
run bf16_1024_128x64 --tile ${B}linear_bf16_128x64.tile "${BF[@]}" --set P=128 "${T[@]}" 1024 1024 1024
run bf16_2048x28672_256x224 --tile ${B}linear_bf16_256x224.tile "${BF[@]}" --set P=132 "${T[@]}" 2048 28672 8192
run bf16_4096_256x224 --tile ${B}linear_bf16_256x224.tile "${BF[@]}" --set P=132 "${T[@]}" 4096 4096 4096
run bf16_512x28672_512x160 --tile ${B}linear_bf16_512x160.tile "${BF[@]}" --set P=132 "${T[@]}" 512 28672 8192
run f16_2048x28672_256x224 --tile ${B}linear_256x224.tile --set P=132 "${T[@]}" 2048 28672 8192
run f16_2048_walk256x128 --tile ${B}walk_256x128.tile --set P=8 --set Q=16 "${T[@]}" 2048 2048 2048
run f16_512x8192_walk256x128 --tile ${B}walk_256x128.tile --set P=4 --set Q=32 "${T[@]}" 512 8192 8192
run bf16_1024_128x128_tmast --tile ${B}walk_bf16_128x128_tmast.tile "${BF[@]}" --set P=16 --set Q=8 "${T[@]}" 1024 1024 1024
date -u; echo "total ${SECONDS}s"
