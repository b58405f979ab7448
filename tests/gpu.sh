#!/usr/bin/env bash
# make gpu-test: run every program the GPU can run through tools/tilepx-run
# (driver API, bit-exact comparison with the CPU reference). Programs whose
# target the GPU lacks are reported as SKIP with the reason.
set -u
cd "$(dirname "$0")/.."
B=${TILEPX_BUILD:-build}
R=$B/tilepx-run
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
N=${RANDOM_CASES:-300}
"$B/randtile" "${RANDOM_SEED:-20261122}" "$N" "$OUT"
status=0
files=(examples/*.tile tests/explain/*.tile tests/gpu/*.tile)
"$R" "${files[@]}" > "$OUT/log" 2>&1 || status=1
for f in "$OUT"/*.tile; do
	"$B/tilepx" check "$f" 2>/dev/null || continue   # the generator's rejected programs
	"$R" "$f" >> "$OUT/log" 2>&1 || status=1
done
cat "$OUT/log"
pass=$(grep -c '^PASS' "$OUT/log"); fail=$(grep -c '^FAIL' "$OUT/log"); skip=$(grep -c '^SKIP' "$OUT/log")
echo
echo "gpu-test: $pass passed, $fail failed, $skip skipped"
exit $status
