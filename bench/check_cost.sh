#!/usr/bin/env bash
# Proof cost against trip count: `tilepx check` on the TMA K-loop of
# tests/gpu/ragged_tma_kloop_store.tile with the facts allowing 4 trips and
# 2^20 trips (K <= 256 and K <= 2^26, 64 columns a trip). The phase proof
# runs each loop to its first repeated head state, so both cost the same.
# Usage: bash bench/check_cost.sh [RUNS]   (after make)
# (the last section times the GEMM kernels, check and emit)
set -eu
cd "$(dirname "$0")/.."
runs=${1:-50}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf '%-22s %12s %14s\n' "facts" "trips (max)" "ms per check"
for hi in 256 65536 67108864; do
	sed "s/assume K <= 65536/assume K <= $hi/" tests/gpu/ragged_tma_kloop_store.tile > "$tmp/k.tile"
	build/tilepx check "$tmp/k.tile"
	start=$(date +%s%N)
	for _ in $(seq "$runs"); do build/tilepx check "$tmp/k.tile"; done
	end=$(date +%s%N)
	printf '%-22s %12d %14.2f\n' "K <= $hi" $(((hi + 63) / 64)) "$(echo "($end - $start) / 1000000 / $runs" | bc -l)"
done
# the same for the warp-specialized pipeline (roles: producer + 2 consumers,
# 4 stages), whose proof runs the roles with vector clocks
echo "examples/ws_pipeline.tile (roles)"
for hi in 256 4096 67108864; do
	sed "s/assume K <= 4096/assume K <= $hi/" examples/ws_pipeline.tile > "$tmp/w.tile"
	build/tilepx check "$tmp/w.tile"
	start=$(date +%s%N)
	for _ in $(seq "$runs"); do build/tilepx check "$tmp/w.tile"; done
	end=$(date +%s%N)
	printf '%-22s %12d %14.2f\n' "K <= $hi" $(((hi + 63) / 64)) "$(echo "($end - $start) / 1000000 / $runs" | bc -l)"
done
# the persistent GEMM: two runtime counts (tiles per CTA, K trips), each
# from 4 to 2^20 trips
echo "examples/gemm_sm90_persistent.tile (roles, persistent)"
for hk in "512 256" "65536 65536" "134217728 67108864"; do
	set -- $hk
	sed "s/assume M <= 65536/assume M <= $1/; s/assume K <= 65536/assume K <= $2/" examples/gemm_sm90_persistent.tile > "$tmp/p.tile"
	build/tilepx check "$tmp/p.tile"
	start=$(date +%s%N)
	for _ in $(seq "$runs"); do build/tilepx check "$tmp/p.tile"; done
	end=$(date +%s%N)
	printf '%-22s %12s %14.2f\n' "M <= $1, K <= $2" "$(((($1 + 127) / 128))) x $((($2 + 63) / 64))" "$(echo "($end - $start) / 1000000 / $runs" | bc -l)"
done
# the attention example (two K/V rings, ping-pong, overlap) and a persistent
# attention kernel (a walk around the K loop), from a few K blocks to millions
echo "attention (roles, S: the sequence length; CPU ms per check)"
for f in examples/attention_fwd_sm90.tile tests/gpu/attention_hd128_ps_small.tile; do
	for hi in 16384 65536 268369920; do
		sed "s/^assume S <= .*/assume S <= $hi/" "$f" > "$tmp/a.tile"
		build/tilepx check "$tmp/a.tile"
		TIMEFORMAT='%3U %3S'
		t=$({ time (for _ in $(seq "$runs"); do build/tilepx check "$tmp/a.tile"; done); } 2>&1)
		printf '%-48s %14s\n' "$(basename "$f") S <= $hi" "$(echo "$t" | awk -v n="$runs" '{ printf "%.2f", ($1 + $2) * 1000 / n }')"
	done
done
# the Hopper GEMMs (issue 27: emitting and proving them well under 100 ms):
# CPU ms (user + sys, which a busy machine inflates less than the wall
# clock) per `tilepx check` and per `tilepx emit` (the emit runs the proof too)
echo "GEMM kernels (CPU time)"
printf '%-40s %14s %14s\n' "file" "ms per check" "ms per emit"
cpu_ms() { # CPU ms per run of: tilepx ARGS..., $runs times
	local TIMEFORMAT='%3U %3S' t
	t=$({ time (for _ in $(seq "$runs"); do build/tilepx "$@"; done); } 2>&1)
	echo "$t" | awk -v n="$runs" '{ printf "%.2f", ($1 + $2) * 1000 / n }'
}
for f in examples/gemm_sm90.tile examples/gemm_sm90_persistent.tile bench/gemm_sm90_persistent_n4.tile \
	examples/gemm_sm90_cluster.tile bench/gemm_sm90_cluster_n4.tile bench/gemm_sm90_cluster_bf16_n2.tile \
	bench/gemm_sm90_cluster_bf16_st.tile bench/gemm_sm90_walk_n4.tile bench/gemm_sm90_walk_st.tile \
	bench/gemm_sm90_walk_bf16_st.tile bench/gemm_sm90_walk_bkn_st.tile bench/gemm_sm90_walk_bf16_any.tile; do
	build/tilepx check "$f"
	printf '%-40s %14s %14s\n' "$f" "$(cpu_ms check "$f")" "$(cpu_ms emit "$f" -o "$tmp/g.ptx")"
done
