#!/usr/bin/env bash
# session 10: make gpu-test after the compute / prover / binding merges (H100), then the
# float sweeps at full size; the log goes to $OUT/gpu-full.log
set -u
O=${OUT:-/tmp}
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $O/gpu-full.log
make -j16 >> $O/build.log 2>&1 || { tail -30 $O/build.log; exit 1; }
timeout ${GPU_TEST_LIMIT:-450} make -j16 gpu-test >> $O/gpu-full.log 2>&1
echo "rc=$?" >> $O/gpu-full.log
{
echo "== float sweeps"
build/tilepx-run --set ITERS=16384 tests/gpu/float_exact_sweep.tile
build/tilepx-run --set ITERS=65536 tests/gpu/approx_bounds.tile
} >> $O/gpu-full.log 2>&1
grep -v '^PASS' $O/gpu-full.log | tail -60
