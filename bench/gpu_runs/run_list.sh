#!/usr/bin/env bash
# Runs every program named in LIST (one path a line) through tilepx-run on the GPU, 8 at a time, with its
# '# harness:' options and every '# runs:' launch; prints the PASS/FAIL/SKIP counts and every non-PASS line.
# Usage (on the device machine): bash bench/gpu_runs/run_list.sh LIST [OUTFILE]
set -u
list=$1; out=${2:-${OUT:-/tmp}/programs.txt}
make -j16 all build/tilepx-run > "${out%.txt}.build.log" 2>&1 || { tail -30 "${out%.txt}.build.log"; exit 1; }
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
one() { # FILE [--set ...]: one launch with the file's harness options
  f=$1; shift; h=$(sed -n 's/^# harness: //p' "$f" | head -1)
  timeout 90 build/tilepx-run $h "$@" "$f" 2>&1 | grep -E "^(PASS|FAIL|SKIP)" | sed "s|\$| [$f $*]|"
}
export -f one
{ for f in $(grep -v '^#' "$list"); do
    echo "$f"
    for run in $(sed -n 's/^# runs: //p' "$f"); do echo "$f --set ${run//,/ --set }"; done
  done; } | xargs -P 8 -I{} bash -c 'one {}' > "$out" 2>&1
echo "programs: PASS $(grep -c '^PASS' "$out") FAIL $(grep -c '^FAIL' "$out") SKIP $(grep -c '^SKIP' "$out")"
grep -v '^PASS' "$out" | head -20
