#!/usr/bin/env bash
# session 9: the TMA-store epilogue inside roles (H100): bit-exact, then timing against the staged twin
set -u
exec > >(tee -a ${OUT:-/tmp}/tmast.log) 2>&1
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
make -j16 build/tilepx build/tilepx-run build/gemm_bench >/dev/null 2>&1 || { echo build failed; exit 1; }
R=build/tilepx-run
timeout 60 $R tests/gpu/roles_tma_store.tile 2>&1 | tail -1
timeout 60 $R --set K=4096 tests/gpu/roles_tma_store.tile 2>&1 | tail -1
for c in "M=300 N=300 K=136 P=2 Q=1" "M=1 N=4 K=8 P=2 Q=1" "M=257 N=260 K=520 P=4 Q=2"; do
  timeout 60 $R $(for a in $c; do printf -- '--set %s ' $a; done) bench/gemm_sm90_walk_tmast.tile 2>&1 | tail -1 | sed "s|\$| [$c]|"
done
G=build/gemm_bench
run() { echo "== $*"; timeout 150 $G "$@" 2>&1 | grep -E '^tilepx |^cublas|during|^check tilepx|FAIL'; }
run --tile bench/gemm_sm90_walk_tmast.tile --data int --rounds 0 --set Q=4 --set P=32 4095 4100 520
run --tile bench/gemm_sm90_walk_tmast.tile --data int --rounds 0 --set Q=4 --set P=32 8192 8192 1024
for s in "8192 8192 1024" "4096 4096 4096" "8192 8192 8192"; do
  run --tile bench/gemm_sm90_walk_tmast.tile --data random --seed 1 --rounds 60 --set Q=4 --set P=32 $s
  run --tile bench/gemm_sm90_walk_st.tile --data random --seed 1 --rounds 60 --set Q=4 --set P=32 $s
done
