#!/usr/bin/env bash
# session 13: the full make gpu-test (every example, explain and GPU program, 300 random
# programs, every ragged size, every listed launch, gpu_fail, Python) on the device, 8 at a time.
set -u
O=${OUT:-/tmp}
date -u; nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader
make -j16 all build/tilepx-run build/libtilepx.so > "$O/build.log" 2>&1 || { tail -30 "$O/build.log"; exit 1; }
start=$(date +%s)
GPU_JOBS=8 GPU_LOG=/tmp/gpu.log timeout "${1:-480}" make gpu-test > /tmp/gpu.out 2>&1; echo "gpu-test rc=$? in $(( $(date +%s) - start )) s"
tail -3 /tmp/gpu.out
if [ -s /tmp/gpu.log ]; then cp /tmp/gpu.log "$O/gpu-test.log"; else cat /tmp/gpu.log.d/*.out > "$O/gpu-test.log" 2>/dev/null; echo "(timed out: partial log from the finished launches)"; fi
echo "PASS $(grep -c '^PASS' "$O/gpu-test.log") FAIL $(grep -c '^FAIL' "$O/gpu-test.log") SKIP $(grep -c '^SKIP' "$O/gpu-test.log")"
grep '^FAIL' "$O/gpu-test.log" | head -20
grep '^SKIP' "$O/gpu-test.log" | cut -c1-160 | sort | uniq -c | sort -rn | head -8
date -u
