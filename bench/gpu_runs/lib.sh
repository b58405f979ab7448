# Sourced by the session scripts in this folder (on the device machine): the preamble they share.
#   gpu_begin LOG [LATE]   log to $OUT/LOG as well as stdout, name the GPU; sections are
#                          skipped once the script has run LATE seconds (default 140)
#   gpu_build TARGET...    make them with 16 jobs (log in $OUT/build.log), stop on failure
#   late LABEL             true, saying so, once the script is past its LATE seconds
#   run LABEL ARGS...      one gemm_bench process (40 s at most): its verdict and timing lines
#   epi_run ARGS...        one gemm_bench process (100 s at most) with the epilogue lines too
O=${OUT:-/tmp}
G=build/gemm_bench
T=(--data random --seed 1 --warmup 5 --rounds 30 --lt-algos 1)
I=(--data int --rounds 0)
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
gpu_begin() {
  exec > >(tee -a "$O/$1") 2>&1
  GPU_LATE=${2:-140}
  date -u; nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv,noheader 2>&1
}
gpu_build() {
  make -j16 "$@" > "$O/build.log" 2>&1 || { tail -30 "$O/build.log"; exit 1; }
  echo "built in ${SECONDS}s"
}
late() { [ "$SECONDS" -gt "$GPU_LATE" ] && { echo "SKIP past $GPU_LATE s: $*"; return 0; }; return 1; }
run() {
  local l=$1; shift; late "$l" && return; echo "== $l: $*"
  timeout 40 "$G" "$@" 2>&1 | grep -E '^(check tilepx|FAIL|SKIP|BENCH|tilepx |cublas|clocks during|gemm_bench)'
}
epi_run() { echo "== $*"; timeout 100 "$G" "$@" 2>&1 | grep -E '^tilepx |^cublas|^SKIP|during|^check|^  |^BENCH|FAIL|choose|auto'; }
