#!/usr/bin/env bash
# session 15, branch epi, the second call (issue 34: bias+GELU, bf16 out,
# >= 1.00 of cuBLASLt's GELU_BIAS at 4096^3). Candidates, each against
# cuBLASLt in the same process (200 interleaved rounds, random data seed 1):
#   _ew      the GELU in the producer warpgroup's idle warps 1-2: the
#            consumers stage h = (x + bias) / 2 (bf16) for a whole tile and go
#            on to the next K loop; the epilogue warps compute and store the
#            tile under it (named-barrier hand-offs; 3 stages, Cs 64 KiB)
#   _ewd1    only D1's half there; D0's GELU and stores as _ovh
#   _ovh_s3  _ovh on a 3-stage ring (the ring's cost alone: read _ew
#            against it and against _ovh)
#   _ovh Q=16 P=8: call 1's best median at 4096^3 (0.981), repeated
# Then FP8 with per-tensor scales + output amax against cuBLASLt (call 1
# failed on Lt's side: no AMAX_D_POINTER with a bf16 D, status 7, and no
# algorithm for the scale pointers alone; gemm_bench now falls back to alpha
# = scale_a scale_b and checks tilepx's amax against max |C| of Lt's output).
# Checks first. About 150 s. Log: $OUT/epi2.log
set -u
exec > >(tee -a "${OUT:-/tmp}/epi2.log") 2>&1
date -u
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv,noheader 2>&1
make -j16 build/tilepx build/tilepx-run build/gemm_bench build/libtilepx.so >/dev/null 2>&1 || { echo "build failed"; exit 1; }
G=build/gemm_bench
run() { echo "== $*"; timeout 100 $G "$@" 2>&1 | grep -E '^tilepx |^cublas|^SKIP|during|^check|^  |^BENCH|FAIL|choose|auto'; }
W=bench/gemm_sm90_walk_bf16_bias_gelu
R="--epilogue gelu_bias --data random --seed 1"
A="--set Q=33 --set P=4"
B="--set Q=16 --set P=8"
echo "== checks: the CPU reference at the set sizes, then a ragged size against cuBLASLt (integer data)"
for f in ${W}_ew.tile ${W}_ewd1.tile ${W}_ovh_s3.tile bench/gemm_sm90_walk_fp8_scaled.tile; do
  timeout 60 build/tilepx-run $(for a in $(sed -n 's/^# set: //p' $f | head -1); do printf -- '--set %s ' $a; done) $f 2>&1 | tail -1
done
I="--epilogue gelu_bias --data int --rounds 0"
run --tile ${W}_ew.tile $I $A 4095 4104 4096
run --tile ${W}_ewd1.tile $I $A 4095 4104 4096
echo "== 4096^3, 200 rounds, interleaved repeats"
run --tile ${W}_ovh.tile $R --rounds 200 $B 4096 4096 4096
run --tile ${W}_ew.tile $R --rounds 200 $A 4096 4096 4096
run --tile ${W}_ewd1.tile $R --rounds 200 $A 4096 4096 4096
run --tile ${W}_ovh_s3.tile $R --rounds 200 $A 4096 4096 4096
run --tile ${W}_ew.tile $R --rounds 200 $B 4096 4096 4096
run --tile ${W}_ewd1.tile $R --rounds 200 $B 4096 4096 4096
run --tile ${W}_ovh.tile $R --rounds 200 $A 4096 4096 4096
run --tile ${W}_ovh.tile $R --rounds 200 $B 4096 4096 4096
run --tile ${W}_ew.tile $R --rounds 200 $A 4096 4096 4096
run --tile ${W}_ewd1.tile $R --rounds 200 $A 4096 4096 4096
run --tile ${W}_ew.tile $R --rounds 200 $B 4096 4096 4096
run --tile ${W}_ewd1.tile $R --rounds 200 $B 4096 4096 4096
run --tile ${W}_ovh.tile $R --rounds 200 $B 4096 4096 4096
echo "== 8192^3 (met by _ovh)"
run --tile ${W}_ew.tile $R --rounds 200 $B 8192 8192 8192
run --tile ${W}_ewd1.tile $R --rounds 200 $B 8192 8192 8192
echo "== FP8 e4m3 -> bf16 with per-tensor scales and the output's amax against cuBLASLt"
F=bench/gemm_sm90_walk_fp8_scaled.tile
run --tile $F --epilogue scale_amax --data int --rounds 0 --set Q=4 --set P=32 4095 4104 1024
run --tile $F --epilogue scale_amax --data random --seed 1 --rounds 200 --set Q=4 --set P=32 4096 4096 4096
run --tile $F --epilogue scale_amax --data random --seed 1 --rounds 100 --set Q=4 --set P=32 8192 8192 8192
date -u
