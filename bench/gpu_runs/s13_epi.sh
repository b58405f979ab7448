#!/usr/bin/env bash
# session 13, branch epi (issue 34's unmet targets): the ping-pong kernels on
# one shared ring (mbarrier.skip; bench/gen_pingpong.py) and the _ov kernels
# (D0's epilogue under D1's last wgmma), beside the plain cooperative ones,
# each against cuBLASLt in the same process. Checks first (integer data at
# 4095 x 4104 x 4096: alpha/beta bit for bit, GELU within gemm_bench's
# tolerance; tilepx-run against the CPU reference at the files' set sizes),
# then 4096^3 (Q=33 P=4) and 8192^3 (Q=16 P=8), 200 rounds. About 150 s.
# Log: $OUT/epi.log
set -u
. bench/gpu_runs/lib.sh
gpu_begin epi.log
make -j16 build/tilepx build/tilepx-run build/gemm_bench build/libtilepx.so >/dev/null 2>&1 || { echo "build failed"; exit 1; }
AB=bench/gemm_sm90_walk_alpha_beta
GE=bench/gemm_sm90_walk_bf16_bias_gelu
PA=bench/gemm_sm90_pingpong_alpha_beta
PG=bench/gemm_sm90_pingpong_bf16_bias_gelu
echo "== ping-pong on one ring: checks, then 4096^3 and 8192^3"
for f in $PA.tile $PG.tile tests/gpu/roles_skip_shared_ring.tile; do
  timeout 60 build/tilepx-run $(for a in $(sed -n 's/^# set: //p' $f | head -1); do printf -- '--set %s ' $a; done) $f 2>&1 | tail -1
done
epi_run --tile $PA.tile --epilogue alpha_beta --data int --rounds 0 --set Q=33 --set P=4 4095 4104 4096
epi_run --tile $PG.tile --epilogue gelu_bias --data random --seed 1 --rounds 0 --set Q=33 --set P=4 4095 4104 4096
epi_run --tile $PA.tile --epilogue alpha_beta --data random --seed 1 --rounds 200 --set Q=33 --set P=4 4096 4096 4096
epi_run --tile $PG.tile --epilogue gelu_bias --data random --seed 1 --rounds 200 --set Q=33 --set P=4 4096 4096 4096
epi_run --tile $PA.tile --epilogue alpha_beta --data random --seed 1 --rounds 200 --set Q=16 --set P=8 8192 8192 8192
epi_run --tile $PG.tile --epilogue gelu_bias --data random --seed 1 --rounds 200 --set Q=16 --set P=8 8192 8192 8192
echo "== _ov: checks"
epi_run --tile ${AB}_ov.tile --epilogue alpha_beta --data int --rounds 0 --set Q=33 --set P=4 4095 4104 4096
epi_run --tile ${GE}_ov.tile --epilogue gelu_bias --data int --rounds 0 --set Q=33 --set P=4 4095 4104 4096
epi_run --tile ${GE}_ov.tile --epilogue gelu_bias --data random --seed 1 --rounds 0 --set Q=33 --set P=4 4095 4104 4096
echo "== 4096^3: _ov, then the plain kernel (each against cuBLASLt in its process)"
for f in ${AB}_ov ${AB}; do run --tile $f.tile --epilogue alpha_beta --data random --seed 1 --rounds 200 --set Q=33 --set P=4 4096 4096 4096; done
for f in ${GE}_ov ${GE}; do run --tile $f.tile --epilogue gelu_bias --data random --seed 1 --rounds 200 --set Q=33 --set P=4 4096 4096 4096; done
echo "== 8192^3"
epi_run --tile ${AB}_ov.tile --epilogue alpha_beta --data random --seed 1 --rounds 200 --set Q=16 --set P=8 8192 8192 8192
epi_run --tile ${GE}_ov.tile --epilogue gelu_bias --data random --seed 1 --rounds 200 --set Q=16 --set P=8 8192 8192 8192
date -u
