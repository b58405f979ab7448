#!/usr/bin/env bash
# bench/bankconf.sh: shared-memory wavefronts predicted by `ptxemu --banks`
# (every warp instruction's lane addresses, 32 banks of 4 bytes, 16-byte
# accesses in quarter-warp phases, 8-byte in half-warp phases) against the
# profiler's counters on the GPU (ncu: l1tex shared wavefronts of LDS/LD and
# STS/ST, ldmatrix and stmatrix included), per kernel. Usage (GPU machine):
# bash bench/bankconf.sh. Exit 1 on a mismatch. The prediction is per PTX
# instruction: where ptxas merges adjacent narrow shared loads into one wider
# SASS load, the counts differ (docs/benchmarks.md lists those kernels).
set -u
cd "$(dirname "$0")/.."
B=${TILEPX_BUILD:-build}
CUDA=${CUDA:-/usr/local/cuda}
NCU=${NCU:-$CUDA/bin/ncu}
make -j16 all "$B/tilepx-run" >/dev/null || exit 1
KERNELS="gs_f16_64x64 gs_bf16_swz gs_f16_pad72 gs_f32_32x32 gs_u8_8x12 gs_f16_16x4 ldm_x1 ldm_x2 ldm_x4 ldm_x4_swz
ldm_x4_trans ldm_x2_trans ldm_x4_m8 stm_x1 stm_x4 stm_x4_trans stm_x4_m8 reg_32x8 reg_frag_g
examples/auto_swizzle_ldmatrix.tile tests/gpu/bank_broadcast.tile tests/gpu/bank_merge_reg.tile
tests/gpu/bank_merge_gs.tile tests/gpu/bank_merge_fallback.tile fallback_s2s"
M=l1tex__data_pipe_lsu_wavefronts_mem_shared.sum
EXTRA=l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,smsp__sass_inst_executed_op_shared_ld.sum,smsp__sass_inst_executed_op_shared_st.sum,smsp__sass_inst_executed_op_ldsm.sum
"$NCU" --query-metrics 2>/dev/null | grep -E "wavefronts_mem_shared|op_ldsm|op_stsm" | head -20
printf '%-16s %10s %10s %10s %10s  %s\n' kernel predicted explain ideal measured match
bad=0
for n in $KERNELS; do
	f=bench/codegen/$n.tile
	case "$n" in */*) f=$n; n=$(basename "$n" .tile) ;; esac
	read -r pred ideal < <("$B/ptxemu" --banks "$f" | awk '/^BANKS .* total:/ { p += $7; i += $10 } END { print p, i }')
	# explain's count from the layouts (per CTA; times the grid)
	grid=$(awk '$1 == "grid" { g = $2; sub(",", "", g); print g * ($3 == "" ? 1 : $3); exit } END { }' "$f")
	expl=$("$B/tilepx" explain --json "$f" | grep '"op": ' | grep -o '"wavefronts": [0-9]*' | awk -v g="${grid:-1}" '{ s += $2 } END { print s * g }')
	out=$("$NCU" --metrics "$M,$EXTRA" --csv "$B/tilepx-run" "$f" 2>/dev/null ||
	      "$NCU" --metrics "$M" --csv "$B/tilepx-run" "$f" 2>/dev/null)
	meas=$(echo "$out" | awk -F'","' '/wavefronts_mem_shared_op_(ld|st)\.sum/ { v = $NF; gsub(/[",]/, "", v); s += v } END { print s + 0 }')
	ok=yes
	[ "$pred" = "$meas" ] || { ok=NO; bad=1; }
	printf '%-16s %10s %10s %10s %10s  %s\n' "$n" "$pred" "$expl" "$ideal" "$meas" "$ok"
	echo "$out" | grep -E 'op_ld|op_st|ldsm' | awk -F'","' '{ print "    " $(NF-2) " = " $NF }' | tr -d '"'
done
exit $bad
