#!/usr/bin/env bash
# session 8, last call: every wgmma program after the descriptor's 18-bit mask (H100)
set -u
exec > >(tee -a ${OUT:-/tmp}/final.log) 2>&1
make -j16 all build/tilepx-run build/gemm_bench >/dev/null 2>&1 || { echo build failed; exit 1; }
R=build/tilepx-run
for f in tests/gpu/wgmma*.tile examples/wgmma*.tile; do timeout 60 $R $f 2>&1 | tail -1; done
for f in examples/gemm_sm90*.tile bench/gemm_sm90*.tile; do
  c=$(sed -n 's/^# set: //p' $f | head -1)
  timeout 60 $R $(for a in $c; do printf -- '--set %s ' $a; done) $f 2>&1 | tail -1 | sed "s|\$| [$f $c]|"
done
G=build/gemm_bench
run() { echo "== $*"; timeout 150 $G "$@" 2>&1 | grep -E '^tilepx |^cublas|during|^check tilepx|FAIL'; }
run --tile bench/gemm_sm90_walk_bkn_st.tile --data int --rounds 0 --set Q=4 --set P=32 4095 4104 520
for s in "4096 4096 4096" "8192 8192 8192"; do
  run --tile bench/gemm_sm90_walk_bkn_st.tile --data random --seed 1 --rounds 60 --set Q=4 --set P=32 $s
  run --tile bench/gemm_sm90_walk_st.tile --data random --seed 1 --rounds 60 --set Q=4 --set P=32 $s
done
