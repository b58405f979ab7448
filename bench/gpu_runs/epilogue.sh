#!/usr/bin/env bash
# Fused GEMM epilogues on the H100 (issue 34): the four epilogue kernels
# against cuBLASLt's fused epilogues (BIAS, RELU_BIAS, GELU_BIAS, bf16 out)
# and alpha/beta (f32 out) against cublasGemmEx and cuBLASLt, in one
# gemm_bench process per kernel and size: 200 timed launches each after 20
# warm-up ones, interleaved, clocks logged. Checks first: integer data bit
# for bit (bias, ReLU, alpha/beta) or within the stated tolerance (GELU),
# random data element by element within gemm_bench's stated tolerance.
# Run from the repository root on a machine with CUDA 13 at /usr/local/cuda,
# nothing built: bash bench/gpu_runs/epilogue.sh (log: $OUT/epilogue.log).
# About 4-6 minutes; each process is cut at 150 s.
set -u
exec > >(tee -a "${OUT:-/tmp}/epilogue.log") 2>&1
date -u
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv,noheader 2>&1
make -j16 build/tilepx build/tilepx-run build/gemm_bench >/dev/null 2>&1 || { echo "build failed"; make build/gemm_bench 2>&1 | tail -20; exit 1; }
git log --oneline -1
# each kernel in tilepx-run at its '# set:' size against the CPU reference (the GPU twin of make test's ptxemu run)
for f in bench/gemm_sm90_walk_bf16_bias.tile bench/gemm_sm90_walk_bf16_bias_relu.tile \
         bench/gemm_sm90_walk_bf16_bias_gelu.tile bench/gemm_sm90_walk_alpha_beta.tile examples/gemm_sm90_epilogue.tile; do
  c=$(sed -n 's/^# set: //p' $f | head -1)
  timeout 60 build/tilepx-run $(for a in $c; do printf -- '--set %s ' $a; done) $f 2>&1 | tail -1 | sed "s|\$| [$f $c]|"
done
G=build/gemm_bench
run() { echo "== $*"; timeout 150 $G "$@" 2>&1 | grep -E '^tilepx |^cublas|^SKIP|during|^check|^  |^BENCH|FAIL'; }
qp() { case $1 in 4096|4095) echo "--set Q=33 --set P=4" ;; *) echo "--set Q=16 --set P=8" ;; esac; }
K16="bias:bench/gemm_sm90_walk_bf16_bias.tile relu_bias:bench/gemm_sm90_walk_bf16_bias_relu.tile gelu_bias:bench/gemm_sm90_walk_bf16_bias_gelu.tile"
# exactness first: integer data, a ragged size the host checks too, then the ragged headline size
for ek in $K16 alpha_beta:bench/gemm_sm90_walk_alpha_beta.tile; do
  e=${ek%%:*}; f=${ek#*:}
  run --tile $f --epilogue $e --data int --rounds 0 --set Q=8 --set P=4 1000 1001 512
  run --tile $f --epilogue $e --data int --rounds 0 $(qp 4095) 4095 4097 4096
done
# timing, random data
for s in "4096 4096 4096" "8192 8192 8192" "2048 2048 2048" "4095 4097 4096"; do
  for ek in $K16 alpha_beta:bench/gemm_sm90_walk_alpha_beta.tile; do
    e=${ek%%:*}; f=${ek#*:}
    run --tile $f --epilogue $e --data random --seed 1 --rounds 200 $(qp ${s%% *}) $s
  done
  # the plain bf16 kernel beside them: the epilogues' own cost
  [ "$s" = "2048 2048 2048" ] || run --tile bench/gemm_sm90_walk_bf16_512x128.tile --data random --seed 1 --rounds 200 $(qp ${s%% *}) $s
done
date -u
