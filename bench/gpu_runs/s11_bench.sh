#!/usr/bin/env bash
# session 11, the benchmarks besides attention: the fused epilogues through stmatrix + TMA
# store (epi2) against cuBLASLt at 4096^3 and 8192^3, with the plain bf16_tmast twin as the
# same-run baseline; split-K (redk) at few-tile shapes; the row kernels. Log: $OUT/bench.log
set -u
exec > >(tee -a "${OUT:-/tmp}/bench.log") 2>&1
date -u
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv,noheader 2>&1
make -j16 build/tilepx build/tilepx-run build/gemm_bench build/libtilepx.so >/dev/null 2>&1 || { echo "build failed"; exit 1; }
G=build/gemm_bench
run() { echo "== $*"; timeout 100 $G "$@" 2>&1 | grep -E '^tilepx |^cublas|^SKIP|during|^check|^  |^BENCH|FAIL|choose|auto'; }
qp() { case $1 in 4096) echo "--set Q=33 --set P=4" ;; *) echo "--set Q=16 --set P=8" ;; esac; }
K16="none:bench/gemm_sm90_walk_bf16_tmast.tile bias:bench/gemm_sm90_walk_bf16_bias.tile relu_bias:bench/gemm_sm90_walk_bf16_bias_relu.tile gelu_bias:bench/gemm_sm90_walk_bf16_bias_gelu.tile silu_bias:bench/gemm_sm90_walk_bf16_bias_silu.tile alpha_beta:bench/gemm_sm90_walk_alpha_beta.tile"
for ek in $K16; do
  e=${ek%%:*}; f=${ek#*:}
  run --tile $f --epilogue $e --data int --rounds 0 $(qp 4095) 4095 4104 4096
done
for s in "4096 4096 4096" "8192 8192 8192"; do
  for ek in $K16; do
    e=${ek%%:*}; f=${ek#*:}
    run --tile $f --epilogue $e --data random --seed 1 --rounds 100 $(qp ${s%% *}) $s
  done
done
echo "== split-K"
run --auto --data int --rounds 0 128 2048 32768
for s in "128 2048 32768" "128 4096 16384" "128 8192 8192"; do run --auto --data random --seed 1 --rounds 100 $s; done
run --tile bench/gemm_sm90_splitk_128x256.tile --zero-c --set P=4 --set Q=32 --data random --seed 1 --rounds 100 128 8192 8192
echo "== FP8 scaled + amax (tilepx-run at its set size)"
c=$(sed -n 's/^# set: //p' bench/gemm_sm90_walk_fp8_scaled.tile | head -1)
timeout 60 build/tilepx-run $(for a in $c; do printf -- '--set %s ' $a; done) bench/gemm_sm90_walk_fp8_scaled.tile 2>&1 | tail -2
echo "== rows"
timeout 200 /opt/torch/.venv/bin/python bench/rows_bench.py 100 2>&1 | tail -40
date -u
