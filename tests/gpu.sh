#!/usr/bin/env bash
# make gpu-test: run every program the GPU can run through tools/tilepx-run
# (driver API, bit-exact comparison with the CPU reference). Programs whose
# target the GPU lacks are reported as SKIP with the reason. The launches run
# GPU_JOBS at a time (default: the CPU count, at most 8), each in its own
# process; the log keeps the order of the list below whatever the finishing order.
set -u
cd "$(dirname "$0")/.."
B=${TILEPX_BUILD:-build}
R=$B/tilepx-run
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
# GPU_LOG=FILE: the log is written there as it grows (what ran survives a timeout) and not printed at the end
LOG=${GPU_LOG:-$OUT/log}
: > "$LOG"
J=${GPU_JOBS:-$(nproc)}
[ "$J" -le 8 ] || J=8
N=${RANDOM_CASES:-300}
# GPU_PARTS: which parts run (default all): programs random sizes runs fail python
PARTS=" ${GPU_PARTS:-programs random sizes runs fail python} "
part() { [[ $PARTS == *" $1 "* ]]; }
# each launch's output in TASKS (beside GPU_LOG when given, so a timeout keeps what ran)
TASKS=${GPU_LOG:+$GPU_LOG.d}
TASKS=${TASKS:-$OUT/task}
rm -rf "$TASKS"; mkdir -p "$OUT/rand" "$TASKS"
"$B/randtile" "${RANDOM_SEED:-20261122}" "$N" "$OUT/rand"

# task LABEL ARGS...: one tilepx-run launch, its output lines suffixed with
# " [LABEL]" (none when LABEL is empty), its exit status beside its output
ntask=0 running=0
task() {
	local label=$1; shift
	local t=$TASKS/$(printf '%06d' "$ntask")
	ntask=$((ntask + 1))
	(
		if [ -n "$label" ]; then "$R" "$@" > "$t.raw" 2>&1; else "$R" "$@" > "$t.out" 2>&1; fi
		echo $? > "$t.rc"
		[ -z "$label" ] || sed "s|\$| [$label]|" "$t.raw" > "$t.out"
	) &
	running=$((running + 1))
	if [ "$running" -ge "$J" ]; then wait -n; running=$((running - 1)); fi
}

files=() special=()
for f in examples/*.tile tests/explain/*.tile tests/gpu/*.tile; do
	if grep -q '^# harness:' "$f"; then special+=("$f"); else files+=("$f"); fi
done
part programs || files=() special=()
# the plain programs in GPU_JOBS slices, one process each
for ((s = 0; s < J; s++)); do
	slice=()
	for ((i = s; i < ${#files[@]}; i += J)); do slice+=("${files[i]}"); done
	[ ${#slice[@]} -eq 0 ] || task "" "${slice[@]}"
done
# programs that name their own harness options (the GEMMs: a dense host check, a linked module)
for f in "${special[@]}"; do
	# shellcheck disable=SC2046
	task "" $(sed -n 's/^# harness: //p' "$f" | head -1) "$f"
done
for f in "$OUT"/rand/*.tile; do
	part random || break
	"$B/tilepx" check "$f" 2>/dev/null || continue   # the generator's rejected programs
	task "" "$f"
done
# ragged programs at every size their '# sizes:' line lists (1, tile-1, tile, tile+1, a prime)
for f in examples/ragged_*.tile tests/gpu/ragged_*.tile examples/gemm_sm90*.tile; do
	spec=$(sed -n 's/^# sizes: //p' "$f")
	part sizes && [ -n "$spec" ] || continue
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
		task "$f at$c" $c "$f"
	done
done
# the launches a program lists ('# runs: M=130,K=8 ...': pipelines at several trip counts)
for f in examples/*.tile tests/gpu/*.tile; do
	part runs || break
	for run in $(sed -n 's/^# runs: //p' "$f"); do
		c=" --set ${run//,/ --set }"
		# shellcheck disable=SC2086
		task "$f at$c" $(sed -n 's/^# harness: //p' "$f" | head -1) $c "$f"
	done
done
wait
status=0
for t in "$TASKS"/*.out; do
	[ -e "$t" ] || continue
	cat "$t" >> "$LOG"
	[ "$(cat "${t%.out}.rc" 2>/dev/null)" = 0 ] || status=1
done
# programs the harness must reject (tests/gpu_fail: '# gpu:' is the expected report, e.g. a guard byte written)
for f in tests/gpu_fail/*.tile; do
	part fail || break
	want=$(sed -n 's/^# gpu: //p' "$f")
	got=$("$R" "$f" 2>&1 | grep -m1 '^FAIL')
	if [ "$want" = "$got" ]; then echo "PASS $f (rejected as expected: $got)"; else echo "FAIL $f: want '$want', got '$got'"; status=1; fi >> "$LOG"
done
# the Python binding on torch tensors (python/tilepx over build/libtilepx.so; SKIP lines without torch)
PY=${TILEPX_PYTHON:-/opt/torch/.venv/bin/python}
[ -x "$PY" ] || PY=python3
if part python; then TILEPX_BUILD=$B "$PY" tests/gpu/python_torch.py >> "$LOG" 2>&1 || status=1; fi
[ -n "${GPU_LOG:-}" ] || cat "$LOG"
pass=$(grep -c '^PASS' "$LOG"); fail=$(grep -c '^FAIL' "$LOG"); skip=$(grep -c '^SKIP' "$LOG")
echo
echo "gpu-test: $pass passed, $fail failed, $skip skipped"
exit $status
