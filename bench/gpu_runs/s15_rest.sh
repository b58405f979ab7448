#!/usr/bin/env bash
# session 15: after s15_final.sh's make gpu-test ran out of its 380 s inside the ragged sizes, the fixed
# tests/explain/gs_tail.tile (its read kernels now fill S first) and make gpu-test's later parts
# (GPU_PARTS="sizes runs fail python", 330 s: this too ran out inside the sizes). Log in $OUT.
set -u
make -j16 all build/tilepx-run build/libtilepx.so > /dev/null 2>&1
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
build/tilepx-run tests/explain/gs_tail.tile 2>&1 | grep -E "^(PASS|FAIL)" | tee "$OUT/rest.log"
start=$SECONDS
GPU_PARTS="sizes runs fail python" GPU_JOBS=8 GPU_LOG=/tmp/g.log timeout 330 make gpu-test > /tmp/g.out 2>&1
echo "rc=$? in $((SECONDS-start)) s" | tee -a "$OUT/rest.log"
if [ -s /tmp/g.log ]; then cp /tmp/g.log "$OUT/gpu-rest.log"; else cat /tmp/g.log.d/*.out > "$OUT/gpu-rest.log"; echo partial | tee -a "$OUT/rest.log"; fi
echo "PASS $(grep -c '^PASS' "$OUT/gpu-rest.log") FAIL $(grep -c '^FAIL' "$OUT/gpu-rest.log") SKIP $(grep -c '^SKIP' "$OUT/gpu-rest.log")" | tee -a "$OUT/rest.log"
