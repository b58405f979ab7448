#!/usr/bin/env bash
# session 10, third call: the session's new tests/gpu programs (named: the device copy has no git history) and the Python binding
set -u
O=${OUT:-/tmp}
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $O/new.log
make -j16 all build/tilepx-run >> $O/build.log 2>&1 || { tail -30 $O/build.log; exit 1; }
for f in tests/gpu/approx_bounds.tile tests/gpu/bulk_store_plain.tile tests/gpu/cp_async_idle_threads.tile tests/gpu/float_exact_arith.tile tests/gpu/float_exact_misc.tile tests/gpu/float_exact_sweep.tile tests/gpu/names_user_generated_apart.tile tests/gpu/reduce_columns.tile tests/gpu/reduce_f16.tile tests/gpu/reduce_in_thread.tile tests/gpu/reduce_roles.tile tests/gpu/reduce_rows_wgmma.tile tests/gpu/reduce_wgmma_acc.tile tests/gpu/regmove.tile tests/gpu/regmove_f8.tile tests/gpu/regshfl.tile tests/gpu/replica_copies.tile tests/gpu/roles_cta_copy_prologue.tile tests/gpu/roles_nbar_lane_arrive_fixed.tile tests/gpu/roles_nbar_per_warpgroup_fixed.tile tests/gpu/roles_race_two_warps_fixed.tile tests/gpu/roles_refill_after_wait_read.tile tests/gpu/set_approx.tile tests/gpu/set_axpby.tile tests/gpu/set_bias_col.tile tests/gpu/set_inplace.tile tests/gpu/set_mask.tile tests/gpu/set_pack.tile tests/gpu/set_relu_clamp.tile tests/gpu/set_roles.tile tests/gpu/set_wgmma_epilogue.tile tests/gpu/shfl_sync.tile tests/gpu/wgmma_rs_fp8_pairs.tile ; do
	h=$(sed -n 's/^# harness: //p' "$f" | head -1)
	timeout 120 build/tilepx-run $h "$f" >> $O/new.log 2>&1 || echo "FAIL(rc) $f" >> $O/new.log
done
TILEPX_BUILD=build timeout 120 /opt/torch/.venv/bin/python tests/gpu/python_torch.py >> $O/new.log 2>&1; echo "py rc=$?" >> $O/new.log
grep -c '^PASS' $O/new.log; grep -v '^PASS' $O/new.log | tail -60
