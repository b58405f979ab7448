#!/usr/bin/env bash
# session 14's last GPU call, on the merged head (~7 minutes, one H200): (1) the programs this session added or
# changed (bench/gpu_runs/s14_list.txt) through tilepx-run with their harness options and '# runs:' launches;
# (2) attention: the defaults and each cell's session-14 winner (_chain_ftz) in every cell at 4k and 16k against cuDNN and FA2 (20 rounds); (3) the bf16
# 20-shape sweep from the chooser's new picks. Logs in $OUT (final.log, programs.txt, attn.log, sweep-bf16.log).
set -u
O=${OUT:-/tmp}
exec > >(tee -a "$O/final.log") 2>&1
date -u; nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader
make -j16 all build/tilepx-run build/gemm_bench build/libtilepx.so > "$O/build.log" 2>&1 || { tail -30 "$O/build.log"; exit 1; }
rm -f "$O/build.log"
echo "== 1. programs"
timeout 90 bash bench/gpu_runs/run_list.sh bench/gpu_runs/s14_list.txt "$O/programs.txt"; rm -f "$O/programs.build.log"
echo "== 2. attention"
timeout 200 bash bench/attention.sh --no-check --rounds 20 --seq 4096,16384 --csv "$O/attn.csv" \
  --only '^attention_fwd_hd(64|128|256)(_causal)?$|^attention_fwd_hd(64_m192_n128_ov_ps|64_causal_m192_n128_ov_rev|128_m128_n192_pp_ov_sq|128_causal_sq_rev|256_sq|256_causal_sq_rev)_chain_ftz$' > "$O/attn.log" 2>&1; echo "attn rc=$?"
grep -E "^\||geometric" "$O/attn.log" | cut -c1-200
echo "== 3. bf16 sweep"
SWEEP_FIXED=0 SWEEP_DTYPE=bf16:bf16 timeout 140 bash bench/gpu_runs/sweep.sh --csv "$O/sweep-bf16.csv" > /dev/null 2>&1; echo "sweep rc=$?"
rm -f "$O/sweep-build.log"; cat "$O/sweep-results-bf16.txt" 2>/dev/null; grep -E 'geomean|geometric' "$O/sweep-bf16.log" | tail -3
date -u
