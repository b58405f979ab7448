#!/usr/bin/env bash
# issue 34, the row kernels on the H100: build, check the row kernels against
# the CPU reference (tilepx-run: exact ops bit for bit, exp2/rcp/rsqrt within
# their bounds), then bench/rows_bench.py (tilepx vs torch vs a device copy).
# Run from the repository root; the log goes to $OUT/rows.log. Under 5 minutes.
set -u
cd "$(dirname "$0")/../.."  # the repository (this script is in bench/gpu_runs/)
exec > >(tee -a "${OUT:-/tmp}/rows.log") 2>&1
PY=${PY:-/opt/torch/.venv/bin/python}
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,power.draw,temperature.gpu --format=csv
timeout 150 make -j16 build/tilepx build/libtilepx.so build/tilepx-run >/dev/null 2>&1 || { echo "build failed"; exit 1; }
R=build/tilepx-run
for f in tests/gpu/softmax_rows_small.tile tests/gpu/rmsnorm_rows_small.tile; do
  timeout 60 $R $f 2>&1 | tail -1 | sed "s|\$| [$f]|"
done
for s in "N=4096 R=264" "N=32768 R=40" "N=12288 R=9"; do
  for f in bench/softmax_rows.tile bench/rmsnorm_rows.tile; do
    timeout 60 $R $(for a in $s; do printf -- '--set %s ' $a; done) $f 2>&1 | tail -1 | sed "s|\$| [$f $s]|"
  done
done
timeout 200 $PY bench/rows_bench.py 200
echo "rows_bench exit $?"
nvidia-smi --query-gpu=clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv
