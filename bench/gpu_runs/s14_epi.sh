#!/usr/bin/env bash
# session 14, branch epi (issue 34's last unmet target: bias+GELU, bf16 out,
# >= 1.00 of cuBLASLt's GELU_BIAS at 4096^3). Candidates, each against
# cuBLASLt in the same process (200 interleaved rounds, random data seed 1):
#   _ov      session 13's best (D0's epilogue under D1's last wgmma): the baseline
#   _ovh     _ov with GELU from h = (x + bias) / 2: the same bits, 5 FP32
#            instructions an element against 6 (its max error must equal _ov's)
#   _ov_c4, _ovh_c4   those on clusters of 4 CTAs along y (B multicast to 4:
#            36 KiB read from L2 a CTA a stage against 40)
#   pingpong_bf16_bias_gelu_c4   the ping-pong on clusters of 4 (its B reload
#            costs a CTA 20 KiB a half-stage against 24 on clusters of 2)
# (The _c4 files are at commit bf5a714: removed after this run, at 0.55.)
# Clusters of 4 need P % 4 == 0: Q=32 P=4 at 4096^3 (32 clusters, 4 tiles a
# CTA, as Q=33 P=4 gives clusters of 2), Q=16 P=8 at 8192^3. Checks first
# (ragged 4095 x 4104 x 4096, GELU within gemm_bench's tolerance; tilepx-run
# against the CPU reference at the files' set sizes). About 150 s. Log: $OUT/epi.log
set -u
. bench/gpu_runs/lib.sh
gpu_begin epi.log
make -j16 build/tilepx build/tilepx-run build/gemm_bench build/libtilepx.so >/dev/null 2>&1 || { echo "build failed"; exit 1; }
W=bench/gemm_sm90_walk_bf16_bias_gelu
PP=bench/gemm_sm90_pingpong_bf16_bias_gelu_c4
R="--epilogue gelu_bias --data random --seed 1"
echo "== checks: the CPU reference at the set sizes, then ragged sizes against cuBLASLt"
for f in ${W}_ovh.tile ${W}_ov_c4.tile ${W}_ovh_c4.tile $PP.tile; do
  timeout 60 build/tilepx-run $(for a in $(sed -n 's/^# set: //p' $f | head -1); do printf -- '--set %s ' $a; done) $f 2>&1 | tail -1
done
epi_run --tile ${W}_ovh.tile --epilogue gelu_bias --data int --rounds 0 --set Q=33 --set P=4 4095 4104 4096
epi_run --tile ${W}_ovh_c4.tile $R --rounds 0 --set Q=32 --set P=4 4095 4104 4096
epi_run --tile $PP.tile $R --rounds 0 --set Q=32 --set P=4 4095 4104 4096
echo "== 4096^3, 200 rounds: baseline, candidates, then the baseline and the c4 kernels again (interleaved repeats)"
epi_run --tile ${W}_ov.tile $R --rounds 200 --set Q=33 --set P=4 4096 4096 4096
epi_run --tile ${W}_ovh.tile $R --rounds 200 --set Q=33 --set P=4 4096 4096 4096
epi_run --tile ${W}_ovh_c4.tile $R --rounds 200 --set Q=32 --set P=4 4096 4096 4096
epi_run --tile ${W}_ov_c4.tile $R --rounds 200 --set Q=32 --set P=4 4096 4096 4096
epi_run --tile $PP.tile $R --rounds 200 --set Q=32 --set P=4 4096 4096 4096
epi_run --tile ${W}_ov.tile $R --rounds 200 --set Q=33 --set P=4 4096 4096 4096
epi_run --tile ${W}_ovh_c4.tile $R --rounds 200 --set Q=32 --set P=4 4096 4096 4096
epi_run --tile ${W}_ovh.tile $R --rounds 200 --set Q=33 --set P=4 4096 4096 4096
epi_run --tile ${W}_ovh_c4.tile $R --rounds 200 --set Q=32 --set P=4 4096 4096 4096
echo "== 8192^3"
epi_run --tile ${W}_ovh_c4.tile $R --rounds 200 --set Q=16 --set P=8 8192 8192 8192
epi_run --tile $PP.tile $R --rounds 200 --set Q=16 --set P=8 8192 8192 8192
epi_run --tile ${W}_ovh.tile $R --rounds 200 --set Q=16 --set P=8 8192 8192 8192
date -u
