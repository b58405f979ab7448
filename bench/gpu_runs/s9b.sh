#!/usr/bin/env bash
# session 9: the headline GEMMs at 200 timed rounds (issue 27's minimum), per-warpgroup
# epilogue barriers against the shared one, in one call (H100)
set -u
exec > >(tee -a ${OUT:-/tmp}/s9b.log) 2>&1
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
make -j16 build/tilepx build/tilepx-run build/gemm_bench >/dev/null 2>&1 || { echo build failed; exit 1; }
G=build/gemm_bench
run() { echo "== $*"; timeout 120 $G "$@" 2>&1 | grep -E '^tilepx |^cublas|during|^check tilepx|FAIL'; }
for f in bench/gemm_sm90_walk_st_wgbar.tile bench/gemm_sm90_walk_512x128_wgbar.tile; do
  q=4; p=32; case $f in *512x128*) q=33; p=4 ;; esac
  run --tile $f --data int --rounds 0 --set Q=$q --set P=$p 4095 4097 4096
  run --tile $f --data int --rounds 0 --set Q=$q --set P=$p 129 7 8
done
for s in "4096 4096 4096" "8192 8192 8192" "4095 4097 4096"; do
  for f in bench/gemm_sm90_walk_st.tile bench/gemm_sm90_walk_st_wgbar.tile bench/gemm_sm90_walk_512x128.tile bench/gemm_sm90_walk_512x128_wgbar.tile; do
    q=4; p=32; case $f in *512x128*) q=33; p=4 ;; esac
    run --tile $f --data random --seed 1 --rounds 200 --set Q=$q --set P=$p $s
  done
done
run --tile bench/gemm_sm90_walk_st_wgbar.tile --data random --seed 1 --rounds 200 --set Q=4 --set P=32 8192 8192 1024
run --tile bench/gemm_sm90_walk_st.tile --data random --seed 1 --rounds 200 --set Q=4 --set P=32 8192 8192 1024
