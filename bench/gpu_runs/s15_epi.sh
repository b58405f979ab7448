#!/usr/bin/env bash
# session 15, branch epi (issue 34's last unmet target: bias+GELU, bf16 out,
# >= 1.00 of cuBLASLt's GELU_BIAS at 4096^3). Candidates, each against
# cuBLASLt in the same process (200 interleaved rounds, random data seed 1):
#   _ovh     session 14's (GELU from h = (x + bias) / 2, D0's epilogue under
#            D1's last wgmma): the incumbent, Q=33 P=4
#   _ovh_wg  _ovh with each consumer warpgroup's stores on its own named
#            barrier and 64 x 64 TMA boxes (no wait for the other warpgroup
#            at the 8 bar.syncs a tile); the same bits
#   linear_bf16_bias_gelu_ovh{,_wg}  those two on the linear tile walk of
#            linear_bf16_tmast_ov (bands of 4 tile rows walked column by
#            column, P=132: 66 clusters), the walk the chooser prefers
#   Q=16 P=8 at 4096^3: the same 4 tiles a CTA, but the tiles in flight at
#            once touch 16 of B's strips and 4 of A's bands (32 MiB) against
#            32 and 2 (40 MiB) with Q=33 P=4
# Last (issue 34's FP8 item, never measured): gemm_sm90_walk_fp8_scaled
# (scales in registers, amax by quad butterflies and red.max) against
# cuBLASLt FP8 with A/B_SCALE_POINTER and AMAX_D_POINTER (gemm_bench
# --epilogue scale_amax; a SKIP line says so where Lt takes no amax with a
# bf16 D and runs with the scales only).
# Checks first (tilepx-run against the CPU reference at the file's set size;
# integer data at 4095 x 4104 x 4096 against cuBLASLt). About 150 s.
# Log: $OUT/epi.log
set -u
exec > >(tee -a "${OUT:-/tmp}/epi.log") 2>&1
date -u
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv,noheader 2>&1
make -j16 build/tilepx build/tilepx-run build/gemm_bench build/libtilepx.so >/dev/null 2>&1 || { echo "build failed"; exit 1; }
G=build/gemm_bench
run() { echo "== $*"; timeout 100 $G "$@" 2>&1 | grep -E '^tilepx |^cublas|^SKIP|during|^check|^  |^BENCH|FAIL|choose|auto'; }
W=bench/gemm_sm90_walk_bf16_bias_gelu
L=bench/gemm_sm90_linear_bf16_bias_gelu
R="--epilogue gelu_bias --data random --seed 1"
echo "== checks: the CPU reference at the set sizes, then a ragged size against cuBLASLt (integer data)"
for f in ${W}_ovh_wg.tile ${L}_ovh.tile ${L}_ovh_wg.tile; do
  timeout 60 build/tilepx-run $(for a in $(sed -n 's/^# set: //p' $f | head -1); do printf -- '--set %s ' $a; done) $f 2>&1 | tail -1
done
I="--epilogue gelu_bias --data int --rounds 0"
run --tile ${W}_ovh_wg.tile $I --set Q=33 --set P=4 4095 4104 4096
run --tile ${L}_ovh.tile $I --set P=132 4095 4104 4096
run --tile ${L}_ovh_wg.tile $I --set P=132 4095 4104 4096
echo "== 4096^3, 200 rounds: incumbent, candidates, then interleaved repeats"
run --tile ${W}_ovh.tile $R --rounds 200 --set Q=33 --set P=4 4096 4096 4096
run --tile ${L}_ovh.tile $R --rounds 200 --set P=132 4096 4096 4096
run --tile ${W}_ovh_wg.tile $R --rounds 200 --set Q=33 --set P=4 4096 4096 4096
run --tile ${L}_ovh_wg.tile $R --rounds 200 --set P=132 4096 4096 4096
run --tile ${W}_ovh.tile $R --rounds 200 --set Q=16 --set P=8 4096 4096 4096
run --tile ${W}_ovh.tile $R --rounds 200 --set Q=33 --set P=4 4096 4096 4096
run --tile ${L}_ovh.tile $R --rounds 200 --set P=132 4096 4096 4096
run --tile ${W}_ovh_wg.tile $R --rounds 200 --set Q=33 --set P=4 4096 4096 4096
run --tile ${L}_ovh_wg.tile $R --rounds 200 --set P=132 4096 4096 4096
echo "== 8192^3 (met by _ovh at Q=16 P=8: the new kernels must not lose it)"
run --tile ${L}_ovh.tile $R --rounds 200 --set P=132 8192 8192 8192
run --tile ${W}_ovh_wg.tile $R --rounds 200 --set Q=16 --set P=8 8192 8192 8192
echo "== FP8 e4m3 -> bf16 with per-tensor scales and the output's amax against cuBLASLt's scale and amax pointers"
F=bench/gemm_sm90_walk_fp8_scaled.tile
timeout 60 build/tilepx-run $(for a in $(sed -n 's/^# set: //p' $F | head -1); do printf -- '--set %s ' $a; done) $F 2>&1 | tail -1
run --tile $F --epilogue scale_amax --data int --rounds 0 --set Q=4 --set P=32 4095 4104 1024
run --tile $F --epilogue scale_amax --data random --seed 1 --rounds 200 --set Q=4 --set P=32 4096 4096 4096
run --tile $F --epilogue scale_amax --data random --seed 1 --rounds 100 --set Q=4 --set P=32 8192 8192 8192
date -u
