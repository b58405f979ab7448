#!/usr/bin/env bash
# bench/gemm.sh: on a GPU machine, in one run: build, print ptxas's registers
# and spills for the GEMM kernel, check it bit for bit (tilepx-run, a dense
# host GEMM), then the fair benchmark bench/gemm_bench.c (issue 27): tilepx's
# kernel, cublasGemmEx and cuBLASLt in one process on the same buffers,
# checked on integer data (bit for bit) and on random data (tolerance), then
# timed on random data, launches interleaved, SM clock and power logged.
#
#   bash bench/gemm.sh [ROUNDS [SIZES...]]
#     ROUNDS   timed rounds per size (default 200)
#     SIZES    "M N K" triples, e.g. "4096 4096 4096"; default: the issue's list
#              (4096^3, 8192^3, 4095x4097x4096, 8192x8192x1024, 128x8192x8192)
#   TILE=FILE.tile  the tilepx kernel (default examples/gemm_f16_mma.tile)
#   BENCH_ARGS=...  more gemm_bench options (e.g. "--b nk --dtype bf16:bf16")
#
# The sm90 kernels (issue 27); each reads its dtypes and B's orientation from
# its declarations, so no --dtype or --b is needed:
#   TILE=examples/gemm_sm90.tile bash bench/gemm.sh             f16 -> f32, B [N, K]
#   TILE=examples/gemm_sm90_bf16.tile bash bench/gemm.sh        bf16 -> bf16 (f32 accumulate), B [N, K]
#   TILE=bench/gemm_sm90_bf16_n2.tile bash bench/gemm.sh 200 "4096 4096 4096" "8192 8192 8192"
#                                                               the same, N % 2 == 0: 4-byte epilogue stores
#   TILE=examples/gemm_sm90_bkn.tile bash bench/gemm.sh 200 "4096 4096 4096" "8192 8192 8192" "4095 4096 4096" \
#     "8192 8192 1024" "128 8192 8192"                          f16 -> f32, B [K, N] (N-major; N % 8 == 0, so
#                                                               M ragged, not N: 4095x4096x4096)
#   TILE=bench/gemm_sm90_walk_fp8_wgbar.tile BENCH_ARGS="--set Q=4 --set P=32" bash bench/gemm.sh 60 "4096 4096 4096" \
#     "8192 8192 8192"                                          FP8 e4m3 -> bf16 against cuBLASLt FP8 (no cublasGemmEx;
#                                                               integer checks skipped past K = 2048)
# or gemm_bench directly, e.g. build/gemm_bench --tile examples/gemm_sm90_bf16.tile --data int --rounds 0 4095 4097 4096
set -u
cd "$(dirname "$0")/.."
B=${TILEPX_BUILD:-build}
CUDA=${CUDA:-/usr/local/cuda}
TILE=${TILE:-examples/gemm_f16_mma.tile}
ROUNDS=${1:-200}
shift $(($# > 0 ? 1 : 0))
make -j16 B="$B" all "$B/tilepx-run" "$B/gemm_bench" >/dev/null || exit 1
export LD_LIBRARY_PATH="$CUDA/lib64:${LD_LIBRARY_PATH:-}"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv,noheader 2>/dev/null ||
	echo "(nvidia-smi not available)"
status=0
echo "== registers and spills (ptxas -v, the kernel's target)"
"$B/tilepx" emit "$TILE" -o "$B/gemm.ptx" || exit 1
arch=$(sed -n 's/^\.target \([a-z0-9_]*\).*/\1/p' "$B/gemm.ptx" | head -1)
"$CUDA/bin/ptxas" -arch="${arch:-sm_90}" -v "$B/gemm.ptx" -o "$B/gemm.cubin" 2>&1 | grep -E "registers|spill|C7515"
if [ "$TILE" = examples/gemm_f16_mma.tile ]; then
	echo "== correctness through tilepx-run (the CPU reference; a dense host GEMM at 4096^3)"
	"$B/tilepx-run" tests/gpu/gemm_small.tile || status=1
	"$B/tilepx-run" --gemm 'C=A*B' "$TILE" || status=1
	echo "== linked variant 4096^3: hand-written main loop + tilepx device functions (cuLink*), checked, timed"
	"$B/tilepx-run" --link examples/gemm_linked.ptx --gemm 'C=A*B' --bench 20 examples/gemm_linked.tile || status=1
fi
GB="$B/gemm_bench"
echo "== cuBLAS's transposes on non-square sizes: cublasGemmEx and cuBLASLt against a dense host GEMM, integer data, every element"
for b in kn nk; do
	for dt in f16:f32 bf16:bf16; do
		"$GB" --data int --rounds 0 --b $b --dtype $dt 333 517 191 | grep -E "^(==|check|FAIL|SKIP|OK|FAILED)"
		[ "${PIPESTATUS[0]}" = 0 ] || status=1
	done
done
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(--issue-sizes)
run() { # gemm_bench over every size
	for s in "${sizes[@]}"; do
		# shellcheck disable=SC2086
		"$GB" --tile "$TILE" ${BENCH_ARGS:-} "$@" $s || status=1
	done
}
echo "== integer data: tilepx, cublasGemmEx and cuBLASLt equal bit for bit (checks only)"
run --data int --rounds 0
echo "== random data (seed 1): checked within the tolerance, then timed over $ROUNDS interleaved rounds"
run --data random --seed 1 --rounds "$ROUNDS"
exit $status
