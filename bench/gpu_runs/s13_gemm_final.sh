#!/usr/bin/env bash
# session 13's GEMM follow-up on the H200 (after merging; ~8-9 minutes): (1) the kernels written after the
# candidates' call, bit for bit on integer data at ragged sizes (bf16 128x192 and 512x160, against
# cublasGemmEx and the host, and their tests/gpu copies through tilepx-run), then timed at their shapes
# (bf16 3072^3, 5120^3) and the 128x64 walk at 128 x 8192 x 8192 (the chooser's new pick there, untimed);
# (2) the full 20-shape sweep with the refitted chooser, f16 then bf16 (bench/gpu_runs/sweep.sh, fixed
# launches skipped). Logs in $OUT (s13f.log, sweep.log, sweep-bf16.log, sweep-results*.txt, sweep*.csv).
set -u
O=${OUT:-/tmp}
exec > >(tee -a "$O/s13f.log") 2>&1
date -u; nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
make -j16 all build/gemm_bench build/tilepx-run > "$O/build.log" 2>&1 || { tail -30 "$O/build.log"; exit 1; }
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
G=build/gemm_bench
T=(--data random --seed 1 --warmup 5 --rounds 30 --lt-algos 1)
run() { local l=$1; shift; echo "== $l: $*"
  timeout 40 "$G" "$@" 2>&1 | grep -E '^(check tilepx|FAIL|SKIP|BENCH|tilepx |cublas|clocks during|gemm_bench)'; }
echo "== 1. kernels written after the candidates' call"
run bf16_128x192 --tile bench/gemm_sm90_linear_bf16_128x192.tile --set P=132 --data int --rounds 0 1000 1008 520
run bf16_512x160 --tile bench/gemm_sm90_linear_bf16_512x160.tile --set P=132 --data int --rounds 0 1000 1008 520
timeout 60 build/tilepx-run tests/gpu/ragged_gemm_linear_bf16_128x192.tile tests/gpu/ragged_gemm_linear_bf16_512x160.tile 2>&1 | grep -E '^(PASS|FAIL)'
run bf16_3072_128x192 --tile bench/gemm_sm90_linear_bf16_128x192.tile --set P=132 "${T[@]}" 3072 3072 3072
run bf16_5120_512x160 --tile bench/gemm_sm90_linear_bf16_512x160.tile --set P=132 "${T[@]}" 5120 5120 5120
run 128x8192_128x64 --tile bench/gemm_sm90_linear_128x64.tile --set P=128 "${T[@]}" 128 8192 8192
run 128x8192_walk128 --tile bench/gemm_sm90_walk_128x128.tile --set P=2 --set Q=64 "${T[@]}" 128 8192 8192
echo "== 2. the sweep, f16 then bf16"
SWEEP_FIXED=0 timeout 300 bash bench/gpu_runs/sweep.sh --csv "$O/sweep.csv" > /dev/null 2>&1; echo "sweep rc=$?"
cat "$O/sweep-results.txt"
SWEEP_DTYPE=bf16:bf16 SWEEP_FIXED=0 timeout 300 bash bench/gpu_runs/sweep.sh --csv "$O/sweep-bf16.csv" > /dev/null 2>&1; echo "bf16 sweep rc=$?"
cat "$O/sweep-results-bf16.txt"
date -u
