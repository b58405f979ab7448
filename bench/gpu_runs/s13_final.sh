#!/usr/bin/env bash
# session 13's last GPU call, on the merged head (~8 minutes): (1) the programs this session added or
# changed (bench/gpu_runs/s13_list.txt) through tilepx-run, 8 at a time, with their '# harness:' options
# and '# runs:' launches; (2) attention: the new defaults in every cell at 4k and 16k with the persistent
# candidates beside the full ones; (3) the epilogue kernels' final timings against cuBLASLt; (4) GEMM: the
# kernels written after the candidates' call, then the chooser on the shapes not yet timed this session.
# Logs in $OUT (final.log, attn.log, programs.txt).
set -u
O=${OUT:-/tmp}
exec > >(tee -a "$O/final.log") 2>&1
date -u; nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader
make -j16 all build/tilepx-run build/gemm_bench build/libtilepx.so > "$O/build.log" 2>&1 || { tail -30 "$O/build.log"; exit 1; }
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
echo "== 1. programs"
bash bench/gpu_runs/run_list.sh bench/gpu_runs/s13_list.txt "$O/programs.txt"
echo "== 2. attention"
timeout 50 bash bench/attention.sh --check-only --only '_ps$' 2>&1 | grep -E "^check|checks" | grep -v " PASS$" | head
timeout 200 bash bench/attention.sh --no-check --rounds 20 --seq 4096,16384 --csv "$O/attn.csv" \
  --only '^attention_fwd_hd(64|128|256)(_causal)?(_ps|_m192_n128_ov_ps)?$' > "$O/attn.log" 2>&1; echo "attn rc=$?"
grep -E "^\||geometric" "$O/attn.log" | cut -c1-200
echo "== 3. epilogues (200 rounds, cuBLASLt in the same process)"
G=build/gemm_bench
ep() { timeout 40 $G "$@" 2>&1 | grep -E '^BENCH|FAIL|clocks'; }
ep --tile bench/gemm_sm90_pingpong_alpha_beta.tile --epilogue alpha_beta --data random --seed 1 --rounds 200 --set Q=33 --set P=4 4096 4096 4096
ep --tile bench/gemm_sm90_walk_bf16_bias_gelu_ov.tile --epilogue gelu_bias --data random --seed 1 --rounds 200 --set Q=33 --set P=4 4096 4096 4096
ep --tile bench/gemm_sm90_pingpong_alpha_beta.tile --epilogue alpha_beta --data random --seed 1 --rounds 200 --set Q=16 --set P=8 8192 8192 8192
ep --tile bench/gemm_sm90_walk_bf16_bias_gelu_ov.tile --epilogue gelu_bias --data random --seed 1 --rounds 200 --set Q=16 --set P=8 8192 8192 8192
echo "== 4. GEMM"
T=(--data random --seed 1 --warmup 5 --rounds 30 --lt-algos 1)
gb() { timeout 40 $G "$@" 2>&1 | grep -E '^(check tilepx|FAIL|BENCH)'; }
gb --tile bench/gemm_sm90_linear_bf16_128x192.tile --set P=132 --data int --rounds 0 1000 1008 520
gb --tile bench/gemm_sm90_linear_bf16_512x160.tile --set P=132 --data int --rounds 0 1000 1008 520
gb --tile bench/gemm_sm90_linear_bf16_128x192.tile --set P=132 "${T[@]}" 3072 3072 3072
gb --tile bench/gemm_sm90_linear_bf16_512x160.tile --set P=132 "${T[@]}" 5120 5120 5120
SWEEP_FIXED=0 SWEEP_SHAPES="1024 1024 1024;7168 7168 7168;512 28672 8192;512 8192 28672;2048 28672 8192;128 8192 8192;2048 8192 8192;6144 6144 6144" \
  timeout 120 bash bench/gpu_runs/sweep.sh --csv "$O/sweep.csv" > /dev/null 2>&1; echo "sweep rc=$?"
cat "$O/sweep-results.txt" 2>/dev/null
date -u
