#!/usr/bin/env bash
# session 15's last GPU call, on the merged head (one H200, ~9 minutes): (1) the whole make gpu-test
# (every example, explain and GPU program, 300 random programs, every ragged size and '# runs:' launch,
# gpu_fail, Python), 8 launches at a time; (2) attention: the defaults and tilepx.attention_choose's picks in
# every cell at 2k, 4k and 16k against cuDNN and FA2 (20 rounds); (3) the bf16 20-shape sweep from the
# chooser's picks, if time is left. Logs in $OUT (final.log, gpu-test.log, attn.log, attn.csv, sweep-bf16).
set -u
. bench/gpu_runs/lib.sh
gpu_begin final.log 470
make -j16 all build/tilepx-run build/gemm_bench build/libtilepx.so build/randtile > "$O/build.log" 2>&1 || { tail -30 "$O/build.log"; exit 1; }
rm -f "$O/build.log"; echo "built in ${SECONDS}s"
echo "== 1. make gpu-test"
start=$SECONDS
GPU_JOBS=8 GPU_LOG=/tmp/gpu.log timeout 380 make gpu-test > /tmp/gpu.out 2>&1; echo "gpu-test rc=$? in $((SECONDS - start)) s"
tail -3 /tmp/gpu.out
if [ -s /tmp/gpu.log ]; then cp /tmp/gpu.log "$O/gpu-test.log"; else cat /tmp/gpu.log.d/*.out > "$O/gpu-test.log" 2>/dev/null; echo "(timed out: partial log)"; fi
echo "PASS $(grep -c '^PASS' "$O/gpu-test.log") FAIL $(grep -c '^FAIL' "$O/gpu-test.log") SKIP $(grep -c '^SKIP' "$O/gpu-test.log")"
grep '^FAIL' "$O/gpu-test.log" | head -20
grep '^SKIP' "$O/gpu-test.log" | cut -c1-120 | sed 's/ \[.*//' | sort | uniq -c | sort -rn | head -5
echo "== 2. attention"
late attention || { timeout 120 bash bench/attention.sh --no-check --rounds 20 --seq 2048,4096,16384 --csv "$O/attn.csv" \
  --only "${ATTN_ONLY:-^attention_fwd_hd(64|128|256)(_causal)?\$|^attention_fwd_hd64_causal_m192_n128_ov_hm_chain_ftz\$}" > "$O/attn.log" 2>&1; echo "attn rc=$?"
  grep -E "^\||geometric" "$O/attn.log" | cut -c1-200; }
echo "== 3. bf16 sweep"
late bf16 sweep || { SWEEP_BENCH=build/gemm_bench SWEEP_FIXED=0 SWEEP_DTYPE=bf16:bf16 timeout $((560 - SECONDS)) bash bench/gpu_runs/sweep.sh --csv "$O/sweep-bf16.csv" > /dev/null 2>&1; echo "sweep rc=$?"
  rm -f "$O/sweep-build.log"; cat "$O/sweep-results-bf16.txt" 2>/dev/null; grep -E 'geomean|geometric' "$O/sweep-bf16.log" | tail -3; }
date -u; echo "total ${SECONDS}s"
