#!/usr/bin/env bash
# session 12's last GPU call, on the merged head: (1) the session's new and changed GPU
# programs (bench/gpu_runs/s12_list.txt: the device copy has no git history) and every
# example through tilepx-run, harness programs in parallel; (2) the torch example;
# (3) the GEMM sweep on the shapes where the chooser now picks the linear walks;
# (4) attention: defaults and _ov_tm checked, then the candidates timed; (5) softmax rows.
# Logs in $OUT (final.log, sweep.log, attn.log).
set -u
O=${OUT:-/tmp}
exec > >(tee -a "$O/final.log") 2>&1
date -u; nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
make -j16 all build/tilepx-run build/gemm_bench build/libtilepx.so > "$O/build.log" 2>&1 || { tail -30 "$O/build.log"; exit 1; }
echo "== 1. programs"
plain=(); special=()
for f in examples/*.tile $(cat bench/gpu_runs/s12_list.txt); do
  if grep -q '^# harness:' "$f"; then special+=("$f"); else plain+=("$f"); fi
done
timeout 100 build/tilepx-run $(printf '%s\n' "${plain[@]}" | sort -u) > "$O/plain.txt" 2>&1; echo "plain rc=$?"
grep -v '^PASS' "$O/plain.txt" | head -20; echo "plain PASS: $(grep -c '^PASS' "$O/plain.txt")"
printf '%s\n' "${special[@]}" | sort -u | xargs -P 6 -I{} sh -c 'h=$(sed -n "s/^# harness: //p" {} | head -1); timeout 90 build/tilepx-run $h {} > /tmp/h.$$.$(basename {}) 2>&1 || echo "FAIL(rc) {}"; grep -h "^PASS\|^FAIL" /tmp/h.$$.$(basename {}) | sed "s|$| [{}]|"' > "$O/special.txt" 2>&1
grep -v '^PASS' "$O/special.txt" | head; echo "harness PASS: $(grep -c '^PASS' "$O/special.txt"), FAIL: $(grep -c 'FAIL' "$O/special.txt")"
for f in $(cat bench/gpu_runs/s12_list.txt); do
  for run in $(sed -n 's/^# runs: //p' "$f"); do
    c=" --set ${run//,/ --set }"
    timeout 30 build/tilepx-run $(sed -n 's/^# harness: //p' "$f" | head -1) $c "$f" 2>&1 | grep "^PASS\|^FAIL" | sed "s|\$| [$f at$c]|"
  done
done > "$O/runs.txt"
grep -v '^PASS' "$O/runs.txt" | head; echo "runs PASS: $(grep -c '^PASS' "$O/runs.txt"), FAIL: $(grep -c '^FAIL' "$O/runs.txt")"
echo "== 2. torch example"
timeout 60 /opt/torch/.venv/bin/python examples/python/gemm_attention_torch.py 2>&1 | tail -12; echo "py rc=${PIPESTATUS[0]}"
echo "== 3. sweep (linear picks)"
SWEEP_FIXED=0 SWEEP_SHAPES="1024 1024 1024;2048 2048 2048;3072 3072 3072;4096 4096 4096;5120 5120 5120;7168 7168 7168;8192 8192 8192;512 10240 8192;2048 10240 8192;8192 10240 8192" timeout 130 bash bench/gpu_runs/sweep.sh --csv "$O/sweep.csv" > /dev/null 2>&1; echo "sweep rc=$?"
grep -E "^\|" "$O/sweep.log" | tail -14; grep -iE "geomean|geometric|FAIL" "$O/sweep.log" | tail -4
echo "== 4. attention"
R2='attention_fwd_hd(64|128|256)(_causal)?(_tm|_ov_tm|_pp_ov_tm|_m192_n128(_ov)?|_m128_n176(_pp)?_ov|_m128_n80(_pp)?_ov|_pp_ov)?$'
timeout 70 bash bench/attention.sh --only 'attention_fwd_hd(64|128|256)(_causal)?(_ov_tm)?$' --seq 4096 --check-only 2>&1 | grep -v "UserWarning\|scaled_dot_product" | tail -8
timeout 130 bash bench/attention.sh --only "$R2" --seq 4096,16384 --rounds 20 --no-check > "$O/attn.log" 2>&1; echo "attn rc=$?"; grep "^|" "$O/attn.log" | cut -c1-140
echo "== 5. rows"
timeout 60 /opt/torch/.venv/bin/python bench/rows_bench.py 50 32768 2>&1 | grep -E "copy|PASS|FAIL|passed" | grep -v "^PASS" | tail -14
date -u
