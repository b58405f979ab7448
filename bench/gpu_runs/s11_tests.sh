#!/usr/bin/env bash
# session 11: the session's new and changed GPU programs (listed in bench/gpu_runs/s11_list.txt:
# the device copy has no git history), every example, the gpu_fail programs and the Python
# binding on torch; the log streams to $OUT/new.log
set -u
O=${OUT:-/tmp}
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $O/new.log
make -j16 all build/tilepx-run build/libtilepx.so >> $O/build.log 2>&1 || { tail -30 $O/build.log; exit 1; }
plain=() ; for f in examples/*.tile $(cat bench/gpu_runs/s11_list.txt); do grep -q '^# harness:' "$f" || plain+=("$f"); done
timeout ${PLAIN_LIMIT:-240} build/tilepx-run $(printf '%s\n' "${plain[@]}" | sort -u) >> $O/new.log 2>&1; echo "plain rc=$?" >> $O/new.log
for f in $(cat bench/gpu_runs/s11_list.txt) examples/*.tile; do
	h=$(sed -n 's/^# harness: //p' "$f" | head -1); [ -n "$h" ] || continue
	timeout 60 build/tilepx-run $h "$f" >> $O/new.log 2>&1 || echo "FAIL(rc) $f" >> $O/new.log
done
for f in $(cat bench/gpu_runs/s11_list.txt) examples/*.tile; do
	for run in $(sed -n 's/^# runs: //p' "$f"); do
		c=" --set ${run//,/ --set }"
		timeout 60 build/tilepx-run $c "$f" 2>&1 | sed "s|\$| [$f at$c]|" >> $O/new.log
	done
done
for f in tests/gpu_fail/*.tile; do echo "$f: $(timeout 30 build/tilepx-run "$f" 2>&1 | grep -m1 '^FAIL') / want $(sed -n 's/^# gpu: //p' "$f")"; done >> $O/new.log
TILEPX_BUILD=build timeout 120 /opt/torch/.venv/bin/python tests/gpu/python_torch.py >> $O/new.log 2>&1; echo "py rc=$?" >> $O/new.log
echo "PASS lines: $(grep -c '^PASS' $O/new.log)"; grep -v '^PASS' $O/new.log | tail -60
