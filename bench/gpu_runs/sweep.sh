#!/usr/bin/env bash
# issue 37's 20 shapes on the H100 (CUDA 13, nothing built; under 6 minutes; log to $OUT/sweep.log):
# each shape with gemm_bench --auto (tilepx_gemm_choose picks the kernel and its window from the size and
# the device's SM count) against cublasGemmEx and cuBLASLt (its heuristic's first algorithm) in the same
# process, random data (seed 1, checked within the tolerance before timing), 5 warm-up launches and 30
# interleaved rounds; then the previous fixed launch (bench/gemm_sm90_walk_512x128.tile, P = 4, Q = 33)
# on the same shapes in a second pass, for comparison. Prints a table of tilepx / cublasGemmEx per shape
# and the geometric means. The 20 shapes: squares 1024..8192 in steps of 1024, M in {512, 2048, 8192} x
# (N, K) in {(10240, 8192), (8192, 8192), (28672, 8192), (8192, 28672)} (8192 x 8192 x 8192 once), and
# 128 x 8192 x 8192 (decode-like).
#   bash bench/gpu_runs/sweep.sh            both passes; SWEEP_FIXED=0 skips the fixed launch
#   SWEEP_DTYPE=bf16:bf16 bash bench/gpu_runs/sweep.sh   bf16 -> bf16 (fixed: gemm_sm90_walk_bf16_512x128)
#   bash bench/gpu_runs/sweep.sh --csv FILE also writes the per-shape times as CSV (bench/plot.py gemm draws it)
set -u
CSV=
if [ "${1:-}" = --csv ] && [ -n "${2:-}" ]; then CSV=$(realpath -m "$2"); shift 2; fi
cd "$(dirname "$0")/../.."  # the repository (this script is in bench/gpu_runs/)
LOG=${OUT:-/tmp}/sweep${SWEEP_DTYPE:+-${SWEEP_DTYPE%%:*}}.log
exec > >(tee -a "$LOG") 2>&1
CUDA=${CUDA:-/usr/local/cuda}
export LD_LIBRARY_PATH="$CUDA/lib64:${LD_LIBRARY_PATH:-}"
date -u
G=${SWEEP_BENCH:-build/gemm_bench} # SWEEP_BENCH, SWEEP_SHAPES ("M N K;M N K"): a dry run (bench/gemm_mock.c)
[ -n "${SWEEP_BENCH:-}" ] || make -j16 all build/gemm_bench build/tilepx-run >"${OUT:-/tmp}/sweep-build.log" 2>&1 || { echo "build failed: see sweep-build.log"; tail -20 "${OUT:-/tmp}/sweep-build.log"; exit 1; }
echo "built in ${SECONDS}s"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit,temperature.gpu --format=csv,noheader ||
	echo "(nvidia-smi not available)"
DT=${SWEEP_DTYPE:-f16:f32}
FIXED_TILE=bench/gemm_sm90_walk_512x128.tile
[ "$DT" = bf16:bf16 ] && FIXED_TILE=bench/gemm_sm90_walk_bf16_512x128.tile
COMMON=(--dtype "$DT" --data random --seed 1 --warmup 5 --rounds 30 --lt-algos 1)
SHAPES=("1024 1024 1024" "2048 2048 2048" "3072 3072 3072" "4096 4096 4096" "5120 5120 5120" "6144 6144 6144"
	"7168 7168 7168" "8192 8192 8192"
	"512 10240 8192" "512 8192 8192" "512 28672 8192" "512 8192 28672"
	"2048 10240 8192" "2048 8192 8192" "2048 28672 8192" "2048 8192 28672"
	"8192 10240 8192" "8192 28672 8192" "8192 8192 28672"
	"128 8192 8192")
if [ -n "${SWEEP_SHAPES:-}" ]; then IFS=';' read -r -a SHAPES <<<"$SWEEP_SHAPES"; fi
RES=${OUT:-/tmp}/sweep-results${SWEEP_DTYPE:+-${SWEEP_DTYPE%%:*}}.txt
: >"$RES"
# one process per shape; its BENCH line (and the pick) go to $RES as "pass M N K pick tilepx gemmEx lt"
one() { # PASS M N K ARGS...
	local pass=$1 m=$2 n=$3 k=$4
	shift 4
	if [ "$SECONDS" -gt 330 ]; then
		echo "SKIP $pass $m x $n x $k: past 330 s"
		return
	fi
	echo "== $pass $m x $n x $k"
	local out
	out=$(timeout 60 "$G" "${COMMON[@]}" "$@" "$m" "$n" "$k" 2>&1)
	echo "$out" | grep -E '^(auto|tilepx |cublas|check tilepx|FAIL|SKIP|BENCH|clocks during|gemm_bench)'
	local pick tp ex lt
	pick=$(echo "$out" | sed -n 's/^auto: [^ ]* [^ ]* on [0-9]* SMs: bench\/\([^ ]*\)\.tile \(P=[0-9]*\( Q=[0-9]*\)*\);.*/\1:\2/p' | tr ' ' ,)
	[ -n "$pick" ] || pick="$(basename "$FIXED_TILE" .tile):P=4,Q=33"
	# the median microseconds of each implementation's timing line (tilepx, cublasGemmEx, cublasLt)
	tp=$(echo "$out" | awk '/^tilepx .*[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+$/ {print $(NF - 3)}' | tail -1)
	ex=$(echo "$out" | awk '/^cublasGemmEx .*[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+$/ {print $(NF - 3)}' | tail -1)
	lt=$(echo "$out" | awk '/^cublasLt .*[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+$/ {print $(NF - 3)}' | tail -1)
	echo "$pass $m $n $k $pick ${tp:--} ${ex:--} ${lt:--}" >>"$RES"
}
if [ -z "${SWEEP_BENCH:-}" ]; then
	# correctness of the picks first (integer data: bit for bit against cuBLAS and the host GEMM), each kernel
	# of the family the chooser picks at these sizes: 128x128, 256x128, linear 512x128 (4095 x 4097), bf16_128x128,
	# linear bf16_512x128, linear 128x256 and bf16_128x256 (383 x 10239), linear 128x192 (3000 x 3001), linear
	# 512x160 (500 x 10000), linear bf16 256x256 (4095 x 4104), linear bf16 512x160 (500 x 10000), linear bf16
	# 256x224 (500 x 28672), linear f16 256x224 (500 x 28672), linear f16 256x256 (4095 x 4092)
	echo "== checks: the picks on integer data, and tilepx-run --gemm-auto against the CPU reference"
	for c in "f16:f32 300 301 136" "f16:f32 129 8193 520" "f16:f32 4095 4097 520" "bf16:bf16 129 257 72" \
		"bf16:bf16 4095 4097 520" "f16:f32 383 10239 72" "bf16:bf16 383 10239 72" "f16:f32 3000 3001 520" \
		"f16:f32 500 10000 520" "bf16:bf16 4095 4104 520" "bf16:bf16 500 10000 520" "bf16:bf16 500 28672 520" \
		"f16:f32 500 28672 520" "f16:f32 4095 4092 520"; do
		set -- $c
		timeout 60 "$G" --auto --dtype "$1" --data int --rounds 0 "$2" "$3" "$4" 2>&1 |
			grep -E '^(auto|check tilepx|FAIL|SKIP|OK|FAILED|gemm_bench)'
	done
	timeout 60 build/tilepx-run --gemm-auto 300,301,136 2>&1 | tail -3
	timeout 60 build/tilepx-run --gemm-auto 129,257,72,bf16:bf16 2>&1 | tail -3
	timeout 60 build/tilepx-run --gemm-auto 383,10239,8 2>&1 | tail -3
fi
for s in "${SHAPES[@]}"; do
	# shellcheck disable=SC2086
	one auto $s --auto
done
if [ "${SWEEP_FIXED:-1}" = 1 ]; then
	for s in "${SHAPES[@]}"; do
		# shellcheck disable=SC2086
		one fixed $s --tile "$FIXED_TILE" --set P=4 --set Q=33
	done
fi
echo "== summary: median microseconds; ratio = tilepx / cublasGemmEx (and / the best of cublasGemmEx and cuBLASLt #0)"
awk '
function r(t, c) { return (t != "-" && c != "-" && t > 0) ? c / t : 0 }  # times in us: the ratio of rates
{ key = $2 "x" $3 "x" $4; if (!(key in first)) { first[key] = 1; order[++n] = key }
  pick[$1, key] = $5; tp[$1, key] = $6; ex[$1, key] = $7; lt[$1, key] = $8 }
END {
	printf "%-18s %-40s %8s %8s %8s %7s %7s | %8s %7s\n", "shape", "auto pick", "tilepx", "GemmEx", "Lt", "ratio", "/best", "fixed", "ratio"
	for (i = 1; i <= n; i++) {
		k = order[i]
		best = ex["auto", k]; if (lt["auto", k] != "-" && (best == "-" || lt["auto", k] + 0 < best + 0)) best = lt["auto", k]
		a = r(tp["auto", k], ex["auto", k]); b = r(tp["auto", k], best); f = r(tp["fixed", k], ex["fixed", k])
		printf "%-18s %-40s %8s %8s %8s %7.3f %7.3f | %8s %7.3f\n", k, pick["auto", k], tp["auto", k], ex["auto", k], lt["auto", k], a, b, tp["fixed", k], f
		if (a > 0) { la += log(a); na++; if (!amin || a < amin) amin = a; if (a >= 0.95) a95++ }
		if (b > 0) { lb += log(b); nb++ }
		if (f > 0) { lf += log(f); nf++; if (!fmin || f < fmin) fmin = f }
	}
	if (na) printf "auto:  geometric mean %.3f of cublasGemmEx over %d shapes (minimum %.3f, %d at >= 0.95); of the best cuBLAS %.3f\n", exp(la / na), na, amin, a95 + 0, nb ? exp(lb / nb) : 0
	if (nf) printf "fixed: geometric mean %.3f of cublasGemmEx over %d shapes (minimum %.3f)\n", exp(lf / nf), nf, fmin
}' "$RES"
nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu --format=csv,noheader 2>/dev/null
if [ -n "$CSV" ]; then python3 bench/plot.py gemm-csv "$RES" "$CSV" && echo "CSV: $CSV"; fi
echo "done in ${SECONDS}s"
date -u
