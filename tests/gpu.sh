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
# GPU_LOG=FILE: the log is written there as it grows (what ran survives a timeout) and not printed at the end
LOG=${GPU_LOG:-$OUT/log}
: > "$LOG"
N=${RANDOM_CASES:-300}
"$B/randtile" "${RANDOM_SEED:-20261122}" "$N" "$OUT"
status=0
files=() special=()
for f in examples/*.tile tests/explain/*.tile tests/gpu/*.tile; do
	if grep -q '^# harness:' "$f"; then special+=("$f"); else files+=("$f"); fi
done
"$R" "${files[@]}" >> "$LOG" 2>&1 || status=1
# programs that name their own harness options (the GEMMs: a dense host check, a linked module)
for f in "${special[@]}"; do
	"$R" $(sed -n 's/^# harness: //p' "$f" | head -1) "$f" >> "$LOG" 2>&1 || status=1
done
for f in "$OUT"/*.tile; do
	"$B/tilepx" check "$f" 2>/dev/null || continue   # the generator's rejected programs
	"$R" "$f" >> "$LOG" 2>&1 || status=1
done
# ragged programs at every size their '# sizes:' line lists (1, tile-1, tile, tile+1, a prime)
for f in examples/ragged_*.tile tests/gpu/ragged_*.tile examples/gemm_sm90*.tile; do
	spec=$(sed -n 's/^# sizes: //p' "$f")
	[ -n "$spec" ] || continue
	combos=("")
	for kv in $spec; do
		n=${kv%%=*}; next=()
		IFS=, read -r -a vals <<< "${kv#*=}"
		for c in "${combos[@]}"; do
			for v in "${vals[@]}"; do next+=("$c --set $n=$v"); done
		done
		combos=("${next[@]}")
	done
	for c in "${combos[@]}"; do
		# shellcheck disable=SC2086
		"$R" $c "$f" 2>&1 | sed "s|\$| [$f at$c]|" >> "$LOG" || status=1
	done
done
# the launches a program lists ('# runs: M=130,K=8 ...': pipelines at several trip counts)
for f in examples/*.tile tests/gpu/*.tile; do
	for run in $(sed -n 's/^# runs: //p' "$f"); do
		c=" --set ${run//,/ --set }"
		# shellcheck disable=SC2086
		"$R" $c "$f" 2>&1 | sed "s|\$| [$f at$c]|" >> "$LOG" || status=1
	done
done
# programs the harness must reject (tests/gpu_fail: '# gpu:' is the expected report, e.g. a guard byte written)
for f in tests/gpu_fail/*.tile; do
	want=$(sed -n 's/^# gpu: //p' "$f")
	got=$("$R" "$f" 2>&1 | grep -m1 '^FAIL')
	if [ "$want" = "$got" ]; then echo "PASS $f (rejected as expected: $got)"; else echo "FAIL $f: want '$want', got '$got'"; status=1; fi >> "$LOG"
done
# the Python binding on torch tensors (python/tilepx over build/libtilepx.so; SKIP lines without torch)
PY=${TILEPX_PYTHON:-/opt/torch/.venv/bin/python}
[ -x "$PY" ] || PY=python3
TILEPX_BUILD=$B "$PY" tests/gpu/python_torch.py >> "$LOG" 2>&1 || status=1
[ -n "${GPU_LOG:-}" ] || cat "$LOG"
pass=$(grep -c '^PASS' "$LOG"); fail=$(grep -c '^FAIL' "$LOG"); skip=$(grep -c '^SKIP' "$LOG")
echo
echo "gpu-test: $pass passed, $fail failed, $skip skipped"
exit $status
