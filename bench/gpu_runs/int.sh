#!/usr/bin/env bash
# session 8: bit-exact on small-integer data at large ragged sizes (H100)
set -u
exec > >(tee -a ${OUT:-/tmp}/int.log) 2>&1
make -j16 all build/gemm_bench >/dev/null 2>&1 || { echo build failed; exit 1; }
G=build/gemm_bench
for s in "8191 8193 520" "4095 4097 4096" "1 1 8" "129 7 8" "8192 8192 1024"; do
  for f in bench/gemm_sm90_walk_st.tile examples/gemm_sm90_cluster.tile; do
    echo "== $f $s"; timeout 120 $G --tile $f --data int --rounds 0 --set Q=4 --set P=32 $s 2>&1 | grep -E "^check|FAIL|error" | head -4
  done
done
for s in "8191 8200 520" "1 8 8"; do
  echo "== bench/gemm_sm90_walk_bf16_st.tile $s"; timeout 120 $G --tile bench/gemm_sm90_walk_bf16_st.tile --data int --rounds 0 --set Q=4 --set P=32 $s 2>&1 | grep -E "^check|FAIL|error" | head -4
done
