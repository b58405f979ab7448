#!/usr/bin/env bash
# fp8 helper, device call: the FP8 GEMM chain on the H100 (issue 27's stretch target):
# the tests/gpu program and the kernel at its '# set:' size through tilepx-run, ptxas's
# registers, bit-exact integer checks at ragged sizes, then random data timed against
# cuBLASLt FP8 (fast accumulation on, then off at 8192^3 for information)
set -u
exec > >(tee -a "${OUT:-/tmp}/fp8.log") 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv,noheader
timeout 240 make -j16 build/tilepx build/tilepx-run build/gemm_bench >/dev/null 2>&1 || { echo "build failed"; exit 1; }
K=bench/gemm_sm90_walk_fp8.tile
echo "== ptxas -v"
build/tilepx emit $K -o build/fp8.ptx && timeout 60 /usr/local/cuda/bin/ptxas -arch=sm_90a -v build/fp8.ptx -o build/fp8.cubin 2>&1 | grep -E "registers|spill|C75"
echo "== tilepx-run"
timeout 60 build/tilepx-run tests/gpu/wgmma_fp8_gemm.tile
timeout 60 build/tilepx-run $K
G=build/gemm_bench
run() { echo "== $*"; timeout "$1" $G "${@:2}" 2>&1 | grep -E '^tilepx |^cublas|^SKIP|during|^check|FAIL|error|^BENCH|^OK|^FAILED'; }
echo "== integer data, bit for bit (host GEMM at the first size, cuBLASLt at both)"
run 60 --tile $K --data int --rounds 0 --host-max 1100 --set Q=4 --set P=32 1000 1032 512
run 60 --tile $K --data int --rounds 0 --set Q=4 --set P=32 4095 4104 1024
echo "== random data, timed (60 rounds)"
run 120 --tile $K --data random --seed 1 --rounds 60 --set Q=4 --set P=32 4096 4096 4096
run 150 --tile $K --data random --seed 1 --rounds 60 --set Q=4 --set P=32 8192 8192 8192
run 150 --tile $K --data random --seed 1 --rounds 60 --set Q=8 --set P=16 8192 8192 8192
run 150 --tile $K --data random --seed 1 --rounds 60 --fp8-fast-accum 0 --set Q=4 --set P=32 8192 8192 8192
