#!/usr/bin/env bash
# issue 27, the ragged size: the 512 x 128 and 256 x 128 cluster-tile GEMMs against bench/gemm_sm90_walk_st.tile
# (256 x 256), one call on an H100. Usage: bash bench/gpu_runs/ragged.sh [quick]
set -u
exec > >(tee -a ${OUT:-/tmp}/ragged.log) 2>&1
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
make -j16 build/tilepx build/tilepx-run build/gemm_bench >/dev/null 2>&1 || { echo build failed; exit 1; }
N512=bench/gemm_sm90_walk_512x128.tile
N256=bench/gemm_sm90_walk_256x128.tile
B512=bench/gemm_sm90_walk_bf16_512x128.tile
BASE=bench/gemm_sm90_walk_st.tile
echo "== tilepx-run (bit-exact against the CPU reference)"
for f in $N512 $N256 $B512; do
  for c in "" "M=300 N=301 K=136 P=2 Q=3" "M=1 N=1 K=8 P=4 Q=2" "M=513 N=257 K=520 P=4 Q=3"; do
    timeout 60 build/tilepx-run $(for a in $c; do printf -- '--set %s ' $a; done) $f 2>&1 | tail -1 | sed "s|\$| [$f ${c:-# set:}]|"
  done
done
G=build/gemm_bench
echo "== bit-exact on integer data (cublasGemmEx, cuBLASLt; the host GEMM where <= 1024)"
for f in $N512 $N256 $B512; do
  for s in "4095 4097 4096" "8191 8193 520" "129 7 8"; do
    echo "-- $f $s"; timeout 120 $G --tile $f --data int --rounds 0 --set Q=33 --set P=4 $s 2>&1 | grep -E "^check|FAIL|error" | head -4
  done
done
run() { echo "== $*"; timeout 150 $G --data random --seed 1 "$@" 2>&1 | grep -E '^tilepx |^cublas|during|max \|C|FAIL|error'; }
for s in "4096 4096 4096" "4095 4097 4096" "8192 8192 8192" "8192 8192 1024"; do
  run --rounds 60 --tile $BASE --set Q=4 --set P=32 $s
  run --rounds 60 --tile $N512 --set Q=33 --set P=4 $s
done
run --rounds 60 --tile $N512 --set Q=32 --set P=4 4096 4096 4096
run --rounds 60 --tile $N512 --set Q=8 --set P=16 8192 8192 8192
for s in "4096 4096 4096" "4095 4097 4096"; do
  run --rounds 60 --tile $N256 --set Q=33 --set P=4 $s
done
for s in "4096 4096 4096" "4095 4097 4096" "8192 8192 8192"; do
  run --rounds 60 --tile $B512 --set Q=33 --set P=4 $s
done
run --rounds 60 --tile bench/gemm_sm90_walk_bf16_any.tile --set Q=4 --set P=32 4096 4096 4096
