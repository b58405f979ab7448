#!/usr/bin/env bash
# bench/gemm.sh: on a GPU machine, in one run: build, check the 4096^3 GEMM
# bit for bit (examples/gemm_f16_mma.tile, dense host check; the small one
# against the CPU reference), time it with tilepx-run, time cuBLAS
# (cublasGemmEx, f16 in, f32 compute) on the same GPU, and print ptxas's
# registers and spills for the GEMM kernel. Usage: bash bench/gemm.sh [ITERS]
set -u
cd "$(dirname "$0")/.."
B=${TILEPX_BUILD:-build}
CUDA=${CUDA:-/usr/local/cuda}
IT=${1:-20}
make -j16 all "$B/tilepx-run" >/dev/null || exit 1
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader 2>/dev/null
echo "== registers and spills (ptxas -v, sm_90)"
for f in examples/gemm_f16_mma.tile; do
	"$B/tilepx" emit "$f" -o "$B/gemm.ptx" || exit 1
	"$CUDA/bin/ptxas" -arch=sm_90 -v "$B/gemm.ptx" -o "$B/gemm.cubin" 2>&1 | grep -E "registers|spill"
done
echo "== correctness"
"$B/tilepx-run" tests/gpu/gemm_small.tile
"$B/tilepx-run" --link tests/gpu/gemm_linked_small.ptx --gemm 'C=A*B' tests/gpu/gemm_linked_small.tile
echo "== tilepx GEMM 4096^3 (checked against a dense host GEMM, then timed over $IT launches)"
"$B/tilepx-run" --gemm 'C=A*B' --bench "$IT" examples/gemm_f16_mma.tile
echo "== linked variant 4096^3: hand-written main loop + tilepx device functions (cuLink*), checked, timed"
"$B/tilepx-run" --link examples/gemm_linked.ptx --gemm 'C=A*B' --bench "$IT" examples/gemm_linked.tile
echo "== cuBLAS, same GPU, same run"
cc -O2 -I"$CUDA/include" bench/gemm_cublas.c -L"$CUDA/lib64" -lcublas -lcudart -o "$B/gemm_cublas" &&
	LD_LIBRARY_PATH="$CUDA/lib64:${LD_LIBRARY_PATH:-}" "$B/gemm_cublas" 4096 4096 4096 "$IT"
