#!/usr/bin/env bash
# bench/tma.sh: on a GPU machine, in one run: cuMemcpyDtoD of 256 MiB, a
# hand-written CUDA C++ TMA stream (bench/tma_stream.cu) and tilepx's
# streaming copies (the TMA pipeline example and the cp.async stream), each
# checked byte for byte, then timed. Usage: bash bench/tma.sh [ITERS] [--csv FILE]
# (--csv: the timings as CSV with the device's HBM peak, HBM_GBPS or by name: bench/plot.py copy draws it)
set -u
CSV=
if [ "${2:-}" = --csv ] && [ -n "${3:-}" ]; then CSV=$(realpath -m "$3"); fi
cd "$(dirname "$0")/.."
if [ -n "$CSV" ]; then # run again with the output kept, then convert it
	log=$(mktemp)
	bash bench/tma.sh "${1:-20}" | tee "$log"
	rc=${PIPESTATUS[0]}
	name=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
	case "$name" in *H200*) hbm=4800 ;; *H100*PCIe*) hbm=2000 ;; *) hbm=3350 ;; esac
	python3 bench/plot.py copy-csv "$log" "$CSV" "${HBM_GBPS:-$hbm}" && echo "CSV: $CSV"
	rm -f "$log"
	exit "$rc"
fi
B=${TILEPX_BUILD:-build}
CUDA=${CUDA:-/usr/local/cuda}
IT=${1:-20}
make -j16 all "$B/tilepx-run" >/dev/null || exit 1
"$CUDA/bin/nvcc" -O3 -arch=sm_90a bench/tma_stream.cu -lcuda -o "$B/tma_stream" || exit 1
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem --format=csv,noheader 2>/dev/null
echo "== baselines: cuMemcpyDtoD and a CUDA C++ TMA stream (256 MiB in, 256 MiB out)"
"$B/tma_stream" 256 "$IT" 4 64 1 || exit 1
"$B/tma_stream" 256 "$IT" 4 64 4 | tail -2 || exit 1  # 4 tiles of 64 rows per CTA, 4 stages
echo "== tilepx (checked against the CPU reference, then timed over $IT launches)"
for f in examples/tma_pipeline_4stage.tile bench/tma_pipeline_reuse.tile examples/stream_256mib.tile; do
	[ -f "$f" ] && "$B/tilepx-run" --bench "$IT" "$f"
done
