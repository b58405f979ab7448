#!/usr/bin/env bash
# session 13's GEMM candidates (issue 37), on the H200, ~150 s: (1) every new kernel bit-exact on integer
# data at ragged sizes against cublasGemmEx and the host (gemm_bench --data int --rounds 0) and through
# tilepx-run against the CPU reference (their tests/gpu copies); (2) each timed at the shape it was made
# for against cuBLAS in the same process (random data, 5 warm-up launches, 30 interleaved rounds), split-K
# with its memset of C in the time (--zero-c); (3) the chooser's new picks (sweep.sh --auto) in f16 and
# bf16. Sections stop being started past 140 s. Logs in $OUT (s13.log, sweep*.log).
set -u
. bench/gpu_runs/lib.sh
gpu_begin s13.log 140
gpu_build build/gemm_bench build/tilepx-run
echo "== 1. integer data, ragged (bit for bit)"
run 512x160 --tile bench/gemm_sm90_linear_512x160.tile --set P=132 "${I[@]}" 1000 1001 520
run 512x160_r3 --tile bench/gemm_sm90_linear_512x160_r3.tile --set P=132 "${I[@]}" 1000 1001 520
run 128x192 --tile bench/gemm_sm90_linear_128x192.tile --set P=132 "${I[@]}" 1000 1001 520
run 256x192 --tile bench/gemm_sm90_linear_256x192.tile --set P=132 "${I[@]}" 1000 1001 520
run 128x64 --tile bench/gemm_sm90_linear_128x64.tile --set P=132 "${I[@]}" 1000 1001 520
run bf16_512x160 --tile bench/gemm_sm90_linear_bf16_512x160.tile --dtype bf16:bf16 --set P=132 "${I[@]}" 1000 1008 520
run bf16_tmast --tile bench/gemm_sm90_linear_bf16_tmast.tile --dtype bf16:bf16 --set P=132 "${I[@]}" 1000 1008 520
run splitk_n2 --tile bench/gemm_sm90_splitk_128x256_n2.tile --zero-c --set P=3 --set Q=4 "${I[@]}" 129 1002 8200
run splitk_linear_n2 --tile bench/gemm_sm90_splitk_linear_128x128_n2.tile --zero-c --set P=132 "${I[@]}" 129 1002 8200
timeout 60 build/tilepx-run tests/gpu/ragged_gemm_linear_512x160.tile tests/gpu/ragged_gemm_linear_512x160_r3.tile \
  tests/gpu/ragged_gemm_linear_128x192.tile tests/gpu/ragged_gemm_linear_256x192.tile tests/gpu/ragged_gemm_linear_128x64.tile \
  tests/gpu/ragged_gemm_linear_bf16_tmast.tile tests/gpu/ragged_gemm_linear_bf16_512x160.tile tests/gpu/ragged_gemm_splitk_n2.tile tests/gpu/ragged_gemm_splitk_linear_n2.tile 2>&1 |
  grep -E '^(PASS|FAIL)'
echo "== 2. timed at their shapes (512 x 128 linear on the H200 in session 12: 5120^3 409.73 us, 512 x 10240 x 8192"
echo "   walk 256x128 139.78 us, 3072^3 walk 256x128 93.38 us, 1024^3 walk 128x128 11.25 us)"
run 5120 --tile bench/gemm_sm90_linear_512x160.tile --set P=132 "${T[@]}" 5120 5120 5120
run 5120_r3 --tile bench/gemm_sm90_linear_512x160_r3.tile --set P=132 "${T[@]}" 5120 5120 5120
run 512x10240 --tile bench/gemm_sm90_linear_512x160.tile --set P=128 "${T[@]}" 512 10240 8192
run 3072_128x192 --tile bench/gemm_sm90_linear_128x192.tile --set P=132 "${T[@]}" 3072 3072 3072
run 3072_256x192 --tile bench/gemm_sm90_linear_256x192.tile --set P=132 "${T[@]}" 3072 3072 3072
run splitk_128x256_n2 --tile bench/gemm_sm90_splitk_128x256_n2.tile --zero-c --set P=16 --set Q=8 "${T[@]}" 128 2048 32768
run splitk_128x256 --tile bench/gemm_sm90_splitk_128x256.tile --zero-c --set P=16 --set Q=8 "${T[@]}" 128 2048 32768
run splitk_linear_n2 --tile bench/gemm_sm90_splitk_linear_128x128_n2.tile --zero-c --set P=128 "${T[@]}" 128 2048 32768
run splitk_linear --tile bench/gemm_sm90_splitk_linear_128x128.tile --zero-c --set P=128 "${T[@]}" 128 2048 32768
run bf16_tmast_4096 --tile bench/gemm_sm90_linear_bf16_tmast.tile --dtype bf16:bf16 --set P=132 "${T[@]}" 4096 4096 4096
run bf16_5120_512x160 --tile bench/gemm_sm90_linear_bf16_512x160.tile --dtype bf16:bf16 --set P=132 "${T[@]}" 5120 5120 5120
run bf16_5120_tmast --tile bench/gemm_sm90_linear_bf16_tmast.tile --dtype bf16:bf16 --set P=132 "${T[@]}" 5120 5120 5120
run 1024_128x64 --tile bench/gemm_sm90_linear_128x64.tile --set P=128 "${T[@]}" 1024 1024 1024
run 128x192_8192 --tile bench/gemm_sm90_linear_128x192.tile --set P=132 "${T[@]}" 8192 8192 8192
echo "== 3. the chooser's picks"
late sweep || { SWEEP_BENCH=build/gemm_bench SWEEP_FIXED=0 SWEEP_SHAPES="3072 3072 3072;5120 5120 5120;512 10240 8192" timeout 60 bash bench/gpu_runs/sweep.sh > /dev/null 2>&1; echo "sweep rc=$?"; cat "$O/sweep-results.txt"; grep -E "FAIL|mismatch" "$O/sweep.log" | head; }
late bf16 sweep || { SWEEP_BENCH=build/gemm_bench SWEEP_DTYPE=bf16:bf16 SWEEP_FIXED=0 SWEEP_SHAPES="4096 4096 4096;5120 5120 5120;512 10240 8192;512 8192 8192;3072 3072 3072" timeout 40 bash bench/gpu_runs/sweep.sh > /dev/null 2>&1; echo "bf16 sweep rc=$?"; cat "$O/sweep-results-bf16.txt"; }
date -u; echo "total ${SECONDS}s"
