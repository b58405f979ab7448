set -u
make -j16 all build/tilepx-run build/gemm_bench >/dev/null 2>&1 || { echo BUILD FAILED; make all 2>&1 | tail -20; exit 1; }
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
echo "== roles programs on the GPU (checked against the CPU reference)"
for f in examples/ws_pipeline.tile tests/gpu/roles_named_handoff.tile tests/gpu/roles_thread_arrive.tile tests/gpu/roles_tma_ring_copy.tile tests/gpu/roles_pipeline.tile; do
  timeout 60 build/tilepx-run $f 2>&1 | tail -2
done
for K in 0 64 192 256 320 448 4096; do timeout 60 build/tilepx-run --set K=$K examples/ws_pipeline.tile 2>&1 | tail -1; done
for s in "M=200 N=300 K=136" "M=1 N=1 K=8" "M=128 N=256 K=64" "M=129 N=257 K=72" "M=1000 N=700 K=520"; do
  set -- $s; timeout 60 build/tilepx-run --set $1 --set $2 --set $3 examples/gemm_sm90.tile 2>&1 | tail -1
done
echo "== GEMM bench (f16 x f16 -> f32, B [N, K])"
GB=build/gemm_bench
for s in "4096 4096 4096" "8192 8192 8192" "4095 4097 4096"; do
  timeout 120 $GB --tile examples/gemm_sm90.tile --data int --rounds 0 $s 2>&1 | tail -4
  timeout 150 $GB --tile examples/gemm_sm90.tile --data random --seed 1 --rounds 100 $s 2>&1 | tail -12
done
