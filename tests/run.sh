#!/usr/bin/env bash
# The test suite behind `make test`. Ends with "N passed, M failed".
# TILEPX_BUILD selects the build directory (build/san under `make sanitize`).
# RANDOM_CASES sets how many random programs the generator checks (default 200).
set -u
cd "$(dirname "$0")/.."
# make test T=PATTERN: run only the sections whose "== title" contains PATTERN
# (the set-up above the first section and the summary always run)
if [ -n "${TEST_FILTER:-}" ] && [ -z "${TEST_FILTERED:-}" ]; then
	filtered=$(mktemp tests/.run.XXXXXX)
	awk -v pat="$TEST_FILTER" '
		function title_of(line,   f, t, all) {
			if (line ~ /^echo "== /) { t = line; sub(/^echo "== /, "", t); return t }
			f = line; sub(/^source /, "", f)
			all = f
			while ((getline t < f) > 0) if (t ~ /^echo "== /) { sub(/^echo "== /, "", t); all = all " | " t }
			close(f); return all
		}
		/^echo "== / || /^source tests\// { insec = 1; keep = index(title_of($0), pat) > 0 }
		/^echo$/ { insec = 0 }
		!insec || keep' tests/run.sh > "$filtered"
	TEST_FILTERED=1 bash "$filtered"; rc=$?
	rm -f "$filtered"
	exit $rc
fi
B=${TILEPX_BUILD:-build}
T=$B/tilepx
PTXAS=${PTXAS:-}
if [ -z "$PTXAS" ]; then
	PTXAS=$(command -v ptxas || true)
	[ -z "$PTXAS" ] && [ -x /usr/local/cuda/bin/ptxas ] && PTXAS=/usr/local/cuda/bin/ptxas
fi
if [ -z "$PTXAS" ] || [ ! -x "$PTXAS" ]; then
	echo "tests: ptxas not found (set PTXAS, put it on PATH, or install CUDA in /usr/local/cuda)" >&2
	exit 1
fi
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
target_of() { awk '/^target /{print $2; exit}' "$1"; }
assemble() { # FILE.ptx TARGET
	if grep -q 'wgmma\.mma_async' "$1"; then
		# a module with wgmma: ptxas -v must print none of its wgmma notices
		# (C7515 serialised, C7519 warpgroup.arrive injected, C7510 wgmma in a call)
		"$PTXAS" -v --gpu-name "$2" "$1" -o /dev/null >"$OUT/ptxas.log" 2>&1 || return 1
		! grep -q -E 'C751[059]' "$OUT/ptxas.log"
		return
	fi
	"$PTXAS" --gpu-name "$2" "$1" -o /dev/null 2>"$OUT/ptxas.log"
}

echo "== unit tests"
for u in "$B"/tests/*; do
	[ -x "$u" ] || continue
	line=$("$u" 2>"$OUT/unit.log" | tail -1)
	p=$(echo "$line" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\1/p')
	f=$(echo "$line" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\2/p')
	if [ -z "$p" ]; then bad "$u crashed or printed no summary"; cat "$OUT/unit.log"; continue; fi
	pass=$((pass + p)); fail=$((fail + f))
	[ "$f" = 0 ] || { echo "FAIL: $u"; cat "$OUT/unit.log"; }
	echo "  $(basename "$u"): $line"
done

echo "== bad inputs (tests/bad): exact located error, exit 1, no output file"
for f in tests/bad/*.tile; do
	if [ -f "${f%.tile}.expect" ]; then exp=$(cat "${f%.tile}.expect"); else exp=$(sed -n '1s/^# expect: //p' "$f"); fi
	[ -n "$exp" ] || { bad "$f carries no expectation"; continue; }
	echo keep > "$OUT/out.ptx"
	"$T" emit "$f" -o "$OUT/out.ptx" 2>"$OUT/err" >/dev/null
	rc=$?
	first=$(head -1 "$OUT/err")
	if [ $rc -ne 1 ]; then bad "$f: exit $rc, want 1"
	elif [ "$first" != "$f:$exp" ]; then bad "$f: got '$first', want '$f:$exp'"
	elif [ "$(sed -n 3p "$OUT/err" | tr -d ' ')" != "^" ]; then bad "$f: no caret line"
	elif [ "$(cat "$OUT/out.ptx")" != keep ]; then bad "$f: output file clobbered"
	elif ls "$OUT"/out.ptx.tmp.* >/dev/null 2>&1; then bad "$f: temporary left behind"
	else ok; fi
done
# check reports the same first error as emit (check fails wherever emit fails)
for f in tests/bad/*.tile; do
	"$T" check "$f" 2>"$OUT/cerr"; rc=$?
	"$T" emit "$f" -o "$OUT/out.ptx" 2>"$OUT/err" >/dev/null
	if [ $rc -ne 1 ]; then bad "check $f: exit $rc"
	elif [ "$(head -1 "$OUT/cerr")" != "$(head -1 "$OUT/err")" ]; then bad "check $f: first error '$(head -1 "$OUT/cerr")', emit's '$(head -1 "$OUT/err")'"
	else ok; fi
done

echo "== fuzz reproducers (tests/fuzz/regressions): each is rejected or emitted, never a crash"
for f in tests/fuzz/regressions/*; do
	for mode in check emit; do
		if [ $mode = emit ]; then "$T" emit "$f" -o "$OUT/fz.ptx" >/dev/null 2>&1; else "$T" check "$f" >/dev/null 2>&1; fi
		rc=$?
		[ $rc -le 1 ] && ok || bad "$f ($mode): exit $rc"
	done
done

source tests/output.sh
source tests/cli.sh

echo "== the CPU reference is independent of the emitter (src/ref imports no layout, region or variant code)"
refo=$B/obj/ref/ref.o
if [ -f "$refo" ]; then
	extra=$(nm -u "$refo" | awk '{print $2}' | grep -v -x -E 'calloc|free|malloc|memcpy|memset|dtype_bytes|dtype_int_bits|diag_error|diag_note|__[A-Za-z0-9_]*' || true)
	[ -z "$extra" ] && ok || bad "src/ref uses code outside the language definition: $extra"
	grep -q -E '#include "\.\./(layout|variants|dispatch)/' src/ref/*.c && bad "src/ref includes emitter headers" || ok
else
	bad "$refo missing"
fi

echo "== usage errors exit 2"
for args in "" "frobnicate" "emit" "emit --bogus x.tile" "check" "explain --json"; do
	"$T" $args >/dev/null 2>&1; rc=$?
	[ $rc -eq 2 ] && ok || bad "tilepx $args: exit $rc, want 2"
done
"$T" --version | grep -q '^tilepx ' && ok || bad "--version"
for c in check emit explain regclasses nvvm-select; do
	"$T" $c --help | grep -q usage && ok || bad "$c --help"
done

echo "== examples: check, emit, ptxas, golden"
for f in examples/*.tile; do
	n=$(basename "$f" .tile); tg=$(target_of "$f")
	"$T" check "$f" || { bad "check $f"; continue; }
	if grep -q '^# emit: no' "$f"; then ok; continue; fi
	if ! "$T" emit "$f" -o "$OUT/$n.ptx" 2>"$OUT/err"; then bad "emit $f: $(head -1 "$OUT/err")"; continue; fi
	if assemble "$OUT/$n.ptx" "$tg"; then ok; else bad "ptxas $f ($tg)"; cat "$OUT/ptxas.log"; fi
	if [ -f "tests/golden/$n.ptx" ]; then
		if tools/ptxdiff "tests/golden/$n.ptx" "$OUT/$n.ptx" >"$OUT/diff"; then ok; else bad "golden $n"; head -40 "$OUT/diff"; fi
	else
		bad "no golden file tests/golden/$n.ptx"
	fi
done
echo "== generated GEMM programs match tools/gen_gemm.sh"
tools/gen_gemm.sh 4096 4096 4096 | cmp -s - examples/gemm_f16_mma.tile && ok || bad "examples/gemm_f16_mma.tile is not tools/gen_gemm.sh 4096 4096 4096"
tools/gen_gemm.sh 256 256 256 gemm_small | cmp -s - tests/gpu/gemm_small.tile && ok || bad "tests/gpu/gemm_small.tile is not tools/gen_gemm.sh 256 256 256 gemm_small"
mkdir -p "$OUT/gl"
tools/gen_gemm_linked.sh 256 256 256 "$OUT/gl" gemm_linked_small && tools/gen_gemm_linked.sh 4096 4096 4096 "$OUT/gl" gemm_linked &&
	sed "s#$OUT/gl#tests/gpu#" "$OUT/gl/gemm_linked_small.tile" | cmp -s - tests/gpu/gemm_linked_small.tile &&
	cmp -s "$OUT/gl/gemm_linked_small.ptx" tests/gpu/gemm_linked_small.ptx &&
	sed "s#$OUT/gl#examples#" "$OUT/gl/gemm_linked.tile" | cmp -s - examples/gemm_linked.tile &&
	cmp -s "$OUT/gl/gemm_linked.ptx" examples/gemm_linked.ptx && ok || bad "the linked GEMMs are not tools/gen_gemm_linked.sh's output"
echo "== linked modules: emitted device functions + hand-written PTX, assembled and linked (ptxas -c, nvlink)"
for f in tests/gpu/gemm_linked_small examples/gemm_linked; do
	"$T" emit "$f.tile" -o "$OUT/lf.ptx" && "$PTXAS" -arch=sm_80 -c "$OUT/lf.ptx" -o "$OUT/lf.o" &&
		"$PTXAS" -arch=sm_80 -c "$f.ptx" -o "$OUT/lm.o" && "$(dirname "$PTXAS")/nvlink" -arch=sm_80 "$OUT/lf.o" "$OUT/lm.o" -o "$OUT/l.cubin" &&
		ok || bad "link $f"
done
echo "== wgmma modules: the ptxas -v notice check fails on a module ptxas patches (tests/wgmma/)"
for g in tests/wgmma/*.ptx; do
	assemble "$g" sm_90a && bad "$g: its ptxas notice was not caught" || ok
done

echo "== golden files assemble"
for g in tests/golden/*.ptx; do
	tg=$(awk '/^\.target /{print $2; exit}' "$g")
	assemble "$g" "$tg" && ok || { bad "ptxas $g"; cat "$OUT/ptxas.log"; }
done

echo "== GPU test programs assemble (tests/gpu)"
for f in tests/gpu/*.tile; do
	n=$(basename "$f" .tile)
	if "$T" emit "$f" -o "$OUT/g_$n.ptx" 2>"$OUT/err" && assemble "$OUT/g_$n.ptx" "$(target_of "$f")"; then ok
	else bad "emit+ptxas $f"; head -3 "$OUT/err" "$OUT/ptxas.log"; fi
done
# repeat ... nounroll reaches ptxas as the pragma in the loop's header block
grep -A1 '^\$L__' "$OUT/g_repeat_nounroll.ptx" | grep -q '^	\.pragma "nounroll";$' && ok || bad "repeat nounroll: no pragma after the loop label"
# a constant repeat of a few synchronous copies is unrolled by tilepx: as a PTX
# loop ptxas 13.0 gives bench/codegen/reg_stream_g 30 registers, straight code 24 (nvcc's twin's)
"$T" emit bench/codegen/reg_stream_g.tile -o "$OUT/rsg.ptx" && ! grep -q '^\$L__' "$OUT/rsg.ptx" &&
	"$PTXAS" -v --gpu-name sm_90 "$OUT/rsg.ptx" -o /dev/null 2>&1 | awk '/Used [0-9]+ registers/ { r = $5 } END { exit !(r > 0 && r <= 24) }' &&
	ok || bad "reg_stream_g: its repeat 8 is not unrolled, or ptxas needs more than nvcc's 24 registers"

echo "== explain (tests/explain: '# explain:' lines are the expected JSON)"
for f in tests/explain/*.tile; do
	sed -n 's/^# explain: //p' "$f" > "$OUT/want"
	"$T" explain --json "$f" > "$OUT/got" 2>"$OUT/err" || { bad "explain $f: $(head -1 "$OUT/err")"; continue; }
	if diff -u "$OUT/want" "$OUT/got" > "$OUT/diff"; then ok; else bad "explain $f"; cat "$OUT/diff"; fi
	n=$(basename "$f" .tile)
	if "$T" emit "$f" -o "$OUT/x_$n.ptx" 2>"$OUT/err" && assemble "$OUT/x_$n.ptx" "$(target_of "$f")"; then ok
	else bad "emit+ptxas $f"; head -3 "$OUT/err" "$OUT/ptxas.log"; fi
	case "$n" in ldstmatrix_grid|ldstmatrix_swizzle) # one m8n8 .b16 instruction per copy, with its num and .trans
		want=$(sed -n 's/^# explain: .*"direction": "\(ld\|st\)", "num": \([124]\), "trans": \(true\|false\).*/\1matrix.sync.aligned.m8n8.x\2 \3/p' "$f" |
			sed 's/ true/.trans/; s/ false//' | sort)
		got=$(grep -o '[ls][dt]matrix.sync.aligned.m8n8.x[124]\(.trans\)\{0,1\}.shared.b16' "$OUT/x_$n.ptx" | sed 's/.shared.b16//' | sort)
		[ -n "$got" ] && [ "$want" = "$got" ] && ok || bad "$f: PTX instructions do not match the explained num/trans" ;;
	esac
	case "$n" in ldgsts_*) # cp.async programs assemble for sm_80 and sm_90 alike
		for tg in sm_80 sm_90; do
			if "$T" emit --target $tg "$f" -o "$OUT/x_$n.$tg.ptx" 2>"$OUT/err" && assemble "$OUT/x_$n.$tg.ptx" $tg; then ok
			else bad "emit+ptxas $f for $tg"; head -3 "$OUT/err" "$OUT/ptxas.log"; fi
		done ;;
	esac
	case "$n" in tcgen05_*) # every target ptxas 13.0 takes tcgen05 on emits and assembles; the others are refused
		for tg in sm_100a sm_100f sm_103a sm_103f sm_110a sm_110f; do
			if "$T" emit --target $tg "$f" -o "$OUT/x_$n.$tg.ptx" 2>"$OUT/err" && assemble "$OUT/x_$n.$tg.ptx" $tg; then ok
			else bad "emit+ptxas $f for $tg"; head -3 "$OUT/err" "$OUT/ptxas.log"; fi
		done
		for tg in sm_90a sm_100 sm_103 sm_110 sm_120a sm_120f sm_121f; do
			"$T" emit --target $tg "$f" -o "$OUT/x_$n.$tg.ptx" 2>"$OUT/err"
			[ $? -eq 1 ] && grep -q "need target sm_100a, sm_100f, sm_103a, sm_103f, sm_110a or sm_110f (target is $tg)" "$OUT/err" && ok ||
				bad "$f for $tg: want a located 'needs target' error"
		done ;;
	esac
done

# the 8-bit matrix shapes on every target ptxas 13.0 takes them on (sm_120f and sm_121f too)
f=tests/gpu/ldstmatrix_b8.tile
for tg in sm_100a sm_100f sm_103a sm_103f sm_110a sm_110f sm_120a sm_120f sm_121a sm_121f; do
	if "$T" emit --target $tg "$f" -o "$OUT/b8.$tg.ptx" 2>"$OUT/err" && assemble "$OUT/b8.$tg.ptx" $tg &&
		grep -q 'ldmatrix.sync.aligned.m16n16.*\.b8' "$OUT/b8.$tg.ptx"; then ok
	else bad "$f for $tg: want ldmatrix .b8, assembled"; head -3 "$OUT/err" "$OUT/ptxas.log"; fi
done

echo "== register classes and the matrix-copy selector"
"$T" regclasses > "$OUT/rc" && diff -u tests/expected/regclasses.txt "$OUT/rc" && ok || bad "regclasses table"
"$T" nvvm-select --table > "$OUT/tbl" && diff -u tests/expected/nvvm_table.txt "$OUT/tbl" && ok || bad "nvvm-select table"
while IFS='|' read -r args want code; do
	[ -z "$args" ] && continue
	case "$args" in \#*) continue ;; esac
	got=$("$T" nvvm-select $args 2>&1 | head -1); rc=$?
	rc=${PIPESTATUS[0]}
	"$T" nvvm-select $args >/dev/null 2>&1; rc=$?
	if [ "$got" = "$want" ] && [ "$rc" = "$code" ]; then ok; else bad "nvvm-select $args: got '$got' ($rc), want '$want' ($code)"; fi
done < tests/expected/nvvm_select_cases.txt
# every valid form of the table assembles (b8 forms on sm_100a)
"$T" nvvm-select --table | awk -F'\t' '$10 != "(none)" {print $10}' | sort -u > "$OUT/forms"
while read -r form; do
	case "$form" in
	ldmatrix.*m16n16.x1*|stmatrix.*x2*|ldmatrix.*x2*) n=2 ;;
	ldmatrix.*m16n16.x2*|*x4*) n=4 ;;
	*) n=1 ;;
	esac
	case "$form" in ldmatrix.*m16n16.x1*) n=2 ;; ldmatrix.*m16n16.x2*) n=4 ;; esac
	regs=$(seq -s, 1 $n | sed 's/\([0-9]*\)/%r\1/g; s/,/, /g')
	case "$form" in
	ldmatrix*) ins="$form {$regs}, [%r10];" ;;
	stmatrix*) ins="$form [%r10], {$regs};" ;;
	*) ins="$form %r1, %r2;" ;;
	esac
	printf '.version 8.6\n.target sm_100a\n.address_size 64\n.visible .entry k()\n{\n.reg .b32 %%r<12>;\nmov.u32 %%r10, 0;\n%s\nret;\n}\n' "$ins" > "$OUT/form.ptx"
	assemble "$OUT/form.ptx" sm_100a && ok || { bad "selector form '$form' does not assemble"; cat "$OUT/ptxas.log"; }
done < "$OUT/forms"

echo "== ptxdiff"
"$T" emit examples/reg_32x8.tile -o "$OUT/a.ptx"
sed 's/%r\([0-9]\)/%r7\1/g; s/^\t/    /' "$OUT/a.ptx" > "$OUT/b.ptx"
tools/ptxdiff "$OUT/a.ptx" "$OUT/b.ptx" >/dev/null && ok || bad "ptxdiff: renumbered registers differ"
sed 's/ld.shared.v4.b32/ld.shared.v2.b32/' "$OUT/a.ptx" > "$OUT/c.ptx"
tools/ptxdiff "$OUT/a.ptx" "$OUT/c.ptx" >/dev/null; [ $? -eq 1 ] && ok || bad "ptxdiff: missed a changed opcode"
tools/ptxdiff --ops-only "$OUT/a.ptx" "$OUT/b.ptx" >/dev/null && ok || bad "ptxdiff --ops-only"
# nvcc-generated PTX (tests/ptxdiff): equal up to line info and numbering; different when the code differs
tools/ptxdiff tests/ptxdiff/a.ptx tests/ptxdiff/b.ptx >/dev/null && ok || bad "ptxdiff: nvcc a ~ b should be equal"
tools/ptxdiff tests/ptxdiff/a.ptx tests/ptxdiff/c.ptx >/dev/null; [ $? -eq 1 ] && ok || bad "ptxdiff: nvcc a ~ c should differ"
tools/ptxdiff tests/ptxdiff/a.ptx >/dev/null 2>&1; [ $? -eq 2 ] && ok || bad "ptxdiff: usage error exit 2"
cp "$OUT/a.ptx" "$OUT/with space.ptx"; cp "$OUT/c.ptx" "$OUT/other space.ptx"
tools/ptxdiff "$OUT/a.ptx" "$OUT/with space.ptx" >/dev/null && ok || bad "ptxdiff: a path with a space"
tools/ptxdiff "$OUT/with space.ptx" "$OUT/other space.ptx" >/dev/null; [ $? -eq 1 ] && ok || bad "ptxdiff: two paths with spaces"

echo "== random programs' generator: one seed, the same programs on every build (tests/randtile.sha256)"
# the checksum of seed 1's first 64 programs (two draws in one call's arguments
# once made gcc and clang builds write different ones); a change to
# tools/randtile.c that means to change the programs rewrites it:
#   build/randtile 1 64 DIR && cat DIR/*.tile | sha256sum | cut -d' ' -f1 > tests/randtile.sha256
mkdir -p "$OUT/rand_seed"
"$B/randtile" 1 64 "$OUT/rand_seed" && [ "$(cat "$OUT"/rand_seed/*.tile | sha256sum | cut -d' ' -f1)" = "$(cat tests/randtile.sha256)" ] && ok ||
	bad "randtile: seed 1 writes other programs than tests/randtile.sha256 records"

echo "== build: an object depends on every header it includes (the .d files of -MMD)"
# src/tilepx.h includes the public header under this name; no Makefile rule
# names it, so only the .d files make api.o depend on it (make -W: as if changed)
MAKEFLAGS= make -n --no-print-directory -W src/../include/tilepx/tilepx.h B="$B" "$B/obj/api.o" 2>&1 | grep -q -- '-c src/api.c' && ok ||
	bad "make: a change to include/tilepx/tilepx.h does not rebuild $B/obj/api.o"

echo "== random programs (seeded): every program emits and assembles, or is rejected with a located error"
N=${RANDOM_CASES:-200}
SEED=${RANDOM_SEED:-20261122}
mkdir -p "$OUT/rand"
"$B/randtile" "$SEED" "$N" "$OUT/rand" || bad "randtile failed"
rpass=0 rfail=0 rrej=0
# one job per program, two at a time (emit + ptxas dominate the suite's time);
# each job leaves PASS, REJ or a FAIL line in N.res
rand_job() {
	f=$1; n=$(basename "$f" .tile); tg=$(awk '/^target /{print $2; exit}' "$f")
	"$T" emit "$f" -o "${f%.tile}.ptx" 2>"${f%.tile}.err"; rc=$?
	if [ $rc -eq 1 ] && grep -q "^$f:[0-9]*:[0-9]*: error: " "${f%.tile}.err"; then echo REJ > "${f%.tile}.res"; return; fi
	if [ $rc -ne 0 ]; then { echo "FAIL: random $n: exit $rc (seed $SEED)"; head -3 "${f%.tile}.err"; } > "${f%.tile}.res"; cp "$f" /tmp/ 2>/dev/null; return; fi
	if "$PTXAS" --gpu-name "$tg" "${f%.tile}.ptx" -o /dev/null 2>"${f%.tile}.log"; then echo PASS > "${f%.tile}.res"
	else { echo "FAIL: random $n: ptxas ($tg), program kept in /tmp/$n.tile"; head -5 "${f%.tile}.log"; } > "${f%.tile}.res"; cp "$f" /tmp/; fi
}
export -f rand_job; export T PTXAS SEED
ls "$OUT"/rand/*.tile | xargs -P 2 -I{} bash -c 'rand_job "$1"' _ {}
for r in "$OUT"/rand/*.res; do
	case "$(head -1 "$r")" in
	PASS) rpass=$((rpass + 1)); ok ;;
	REJ) rrej=$((rrej + 1)); ok ;;
	*) rfail=$((rfail + 1)); fail=$((fail + 1)); cat "$r" ;;
	esac
done
n_res=$(ls "$OUT"/rand/*.res | wc -l); n_tile=$(ls "$OUT"/rand/*.tile | wc -l)
[ "$n_res" = "$n_tile" ] && ok || bad "random: $n_tile programs but $n_res results"
echo "  $rpass assembled, $rrej rejected with a located error, $rfail failed"
[ $rrej -le $((N / 4)) ] && ok || bad "random: too many programs rejected ($rrej of $N): the generator drifts"
# randtile writes a cp.async copy_async only where 4-byte pieces fit (elements of
# 4 bytes or more in any layout, narrower ones in aligned row-major runs): each must lower
nasync=0 rasync=0
for f in "$OUT"/rand/*.tile; do
	grep -q '^[a-z]* copy_async' "$f" && ! grep -q '^mbarrier' "$f" || continue
	nasync=$((nasync + 1))
	[ "$(head -1 "${f%.tile}.res")" = REJ ] || continue
	rasync=$((rasync + 1)); echo "  refused cp.async: $f: $(grep -m1 'ldgsts' "${f%.tile}.err")"
done
echo "  $nasync random cp.async programs, $rasync refused"
[ $rasync -eq 0 ] && ok || bad "random: $rasync cp.async programs that 4-byte pieces can copy were refused"

echo "== no stand-in stride in emitted code: the proofs' row stride of runtime-stride params (a multiple of 2^21 + 1) never reaches a module"
# every module the suite emits (the random ones when that section ran), and the goldens
mkdir -p "$OUT/standin"
for f in examples/*.tile tests/gpu/*.tile tests/explain/*.tile bench/codegen/*.tile; do
	grep -q '^# emit: no' "$f" && continue
	"$T" emit "$f" -o "$OUT/standin/$(basename "$(dirname "$f")")_$(basename "$f" .tile).ptx" 2>/dev/null || bad "emit $f"
done
standin=$(for p in "$OUT"/standin/*.ptx tests/golden/*.ptx $(ls "$OUT"/rand/*.ptx 2>/dev/null); do
	sed 's#//.*##' "$p" | grep -oE '(^|[^.%A-Za-z0-9_])[0-9]{7,15}([^.0-9A-Za-z_]|$)' | tr -cd '0-9\n' |
		awk -v f="$p" '$1 % 2097153 == 0 && $1 > 0 { print f ": " $1 }'
done)
[ -z "$standin" ] && ok || { bad "a stand-in row stride reached emitted code"; echo "$standin" | head -5; }

echo "== emulated execution (build/ptxemu): emitted PTX run on the CPU, every param byte against the CPU reference"
emu_run() { # FILES...: count PASS and FAIL lines
	"$B/ptxemu" "$@" > "$OUT/emu.log" 2>&1
	local p f
	p=$(grep -c '^PASS' "$OUT/emu.log"); f=$(grep -c '^FAIL' "$OUT/emu.log")
	pass=$((pass + p)); fail=$((fail + f))
	grep -A4 '^FAIL' "$OUT/emu.log" | head -20
	echo "  $p kernels passed, $f failed, $(grep -c '^SKIP' "$OUT/emu.log") skipped (too many threads to emulate)"
}
emu_run examples/*.tile tests/gpu/*.tile tests/explain/*.tile bench/codegen/*.tile
emitted=()
for f in "$OUT"/rand/*.tile; do [ -s "${f%.tile}.ptx" ] && emitted+=("$f"); done
[ ${#emitted[@]} -gt 0 ] && emu_run "${emitted[@]}"

echo "== runtime sizes: ragged programs at sizes 1, tile-1, tile, tile+1 and a prime; broken facts refused"
# '# sizes: M=1,63,64 K=8,56' in a program: every combination is emulated
for f in examples/ragged_*.tile tests/gpu/ragged_*.tile; do
	spec=$(sed -n 's/^# sizes: //p' "$f")
	[ -n "$spec" ] || { bad "$f: no '# sizes:' line"; continue; }
	combos=("")
	for kv in $spec; do
		n=${kv%%=*}; next=()
		for c in "${combos[@]}"; do
			IFS=, read -r -a vals <<< "${kv#*=}"
			for v in "${vals[@]}"; do next+=("$c --set $n=$v"); done
		done
		combos=("${next[@]}")
	done
	for c in "${combos[@]}"; do
		# shellcheck disable=SC2086
		if "$B/ptxemu" $c "$f" > "$OUT/emu.log" 2>&1 && ! grep -q '^FAIL' "$OUT/emu.log"; then ok
		else bad "$f at$c"; head -5 "$OUT/emu.log"; fi
	done
done
want="FAIL ragged_copy_2d: K=9 breaks the fact 'K % 8 == 0' (line 16); the kernel's code relies on it"
got=$("$B/ptxemu" --set M=5 --set K=9 examples/ragged_copy_2d.tile 2>&1 | head -1)
[ "$want" = "$got" ] && ok || bad "broken fact: want '$want', got '$got'"
# facts are a conjunction: a looser bound added later does not free M (it was replaced before)
sed 's/^assume M <= 64$/assume M <= 64\nassume M <= 1000/' tests/gpu/ragged_lower_fact.tile > "$OUT/ragged_lower_fact.tile"
want="FAIL ragged_lower_fact: M=100 breaks the fact 'M <= 64' (line 14); the kernel's code relies on it"
got=$("$B/ptxemu" --set M=100 "$OUT/ragged_lower_fact.tile" 2>&1 | head -1)
[ "$want" = "$got" ] && ok || bad "dropped fact: want '$want', got '$got'"
want="FAIL ragged_ld: LDA=32 is less than the 40 elements of a row of 'A': its rows would overlap"
got=$("$B/ptxemu" --set LDA=32 tests/gpu/ragged_ld.tile 2>&1 | head -1)
[ "$want" = "$got" ] && ok || bad "overlapping rows: want '$want', got '$got'"
want="FAIL ragged_tma_small: M=0 gives 'A' an empty dimension 0; a tensor map's dimensions are at least 1"
got=$("$B/ptxemu" --set M=0 tests/gpu/ragged_tma_small.tile 2>&1 | head -1)
[ "$want" = "$got" ] && ok || bad "empty tensor-map dimension: want '$want', got '$got'"
want="FAIL ragged_copy_2d: scalar param 'M' has no value (pass --set M=N)"
got=$(sed '/^# set:/d' examples/ragged_copy_2d.tile > "$OUT/noset.tile"; "$B/ptxemu" "$OUT/noset.tile" 2>&1 | head -1)
[ "$want" = "$got" ] && ok || bad "missing value: want '$want', got '$got'"

source tests/runners.sh

echo "== hazard warnings (tests/warn, and tests/emu_fail programs with a '# warn:' line: the first diagnostic; exit 0), and none for the examples and their fixed twins in tests/gpu"
for f in tests/warn/*.tile $(grep -l '^# warn: ' tests/emu_fail/*.tile); do
	want=$(sed -n 's/^# warn: //p' "$f")
	got=$("$T" check "$f" 2>&1 >/dev/null | head -1 | sed "s|^$f:||")
	"$T" check "$f" >/dev/null 2>&1 && [ "$want" = "$got" ] && ok || bad "$f: want '$want', got '$got'"
done
for f in examples/*.tile tests/gpu/*.tile; do
	"$T" check "$f" 2>&1 | grep -q 'warning:' && bad "$f: warns" || ok
done

source tests/banks.sh
source tests/races.sh

echo "== emulator failures (tests/emu_fail: hand-written PTX the GPU would hang on; '# emu:' is the expected report)"
for f in tests/emu_fail/*.tile tests/gpu_fail/*.tile; do
	want=$(sed -n 's/^# emu: //p' "$f")
	got=$("$B/ptxemu" "$f" 2>&1 | head -n "$(grep -c '^# emu: ' "$f")")  # a hang reports one line per blocked instruction
	[ "$want" = "$got" ] && ok || bad "$f: want '$want', got '$got'"
done

echo "== limits: huge, overflowing, deep and long inputs give an error or work, in bounded time"
L=$OUT/limits; mkdir -p "$L"
printf 'target sm_90\nkernel k\nthreads 32\nparam A f32 [4611686018427387904, 4]\n' > "$L/huge_shape.tile"
printf 'target sm_90\nkernel k\nthreads 32\nshared S f32 [2, 2] layout S[(2, 2) : (9223372036854775807, 1)]\n' > "$L/stride_overflow.tile"
printf 'target sm_90\nkernel k\nthreads 32\nparam A f32 [8]\nshared S f32 [1]\ncta copy S, A[4611686018427387904 * 4]\n' > "$L/expr_overflow.tile"
printf 'target sm_90\nkernel k\nthreads 32\ngrid 2147483647\nparam A f32 [64]\nshared S f32 [1]\ncta copy S, A[ctaid * 4294967296]\n' > "$L/ctaid_overflow.tile"
{ printf 'target sm_90\nkernel k\nthreads 32\n'; for i in $(seq 16); do echo "repeat 1000 as i$i {"; done; echo sync; for i in $(seq 16); do echo "}"; done; } > "$L/deep_repeat.tile"
# empty loop bodies: the race and hazard checks once iterated every trip (2^62 here) without a budget
printf 'target sm_90\nkernel k\nthreads 64\nparam K u32\nshared S f32 [64]\nrepeat K {\n  repeat K {\n  }\n}\n' > "$L/empty_repeats.tile"
printf 'target sm_90\nkernel k\nthreads 64\nparam A f32 [64]\nshared S f32 [64]\ncta copy_async S, A\ncp_async.commit\nrepeat 2147483647 {\n  repeat 2147483647 {\n  }\n}\ncp_async.wait 0\n' > "$L/empty_repeats_cp_async.tile"
{ printf 'target sm_90\n# '; head -c 2000000 /dev/zero | tr '\0' 'x'; printf '\nkernel k\nthreads 32\nsync\n'; } > "$L/long_line.tile"
# 100000 statements are emitted in bounded time; ptxas needs 25 s for them, so the
# same statement is assembled at 5000 (the PTX is the same instruction repeated)
{ printf 'target sm_90\n# limits: emit only\nkernel k\nthreads 32\n'; yes sync | head -n 100000; } > "$L/many_statements.tile"
{ printf 'target sm_90\nkernel k\nthreads 32\n'; yes sync | head -n 5000; } > "$L/many_statements_asm.tile"
{ printf 'target sm_80\n'; for i in $(seq 3000); do printf 'kernel k%d\nthreads 32\nparam A u8 [64]\nshared S u8 [64]\ncta copy S, A\n' $i; done; } > "$L/many_kernels.tile"
{ printf 'target sm_90\nkernel k\nthreads 32\n'; for i in $(seq 300); do echo "param A$i f32 [1, 2, 3, 4, 5, 6, 7, 8] layout S[(1, 2, 3, 4, 5, 6, 7, 8)]"; done; } > "$L/many_buffers.tile"
# kernel params past 4352 bytes need PTX 8.1 (emitted then), past 32764 bytes are an error (ptxas refused both)
{ printf 'target sm_90\nkernel k\nthreads 32\nparam M u32\n'; for i in $(seq 545); do echo "param A$i f32 [32]"; done; printf 'shared S f32 [32]\ncta copy S, A1\n'; } > "$L/params_4360_bytes.tile"
{ printf 'target sm_90\nkernel k\nthreads 32\n'; for i in $(seq 4096); do echo "param A$i f32 [32]"; done; printf 'shared S f32 [32]\ncta copy S, A1\n'; } > "$L/params_32768_bytes.tile"
limit_job() {
	f=$1; o=${f%.tile}.ptx; e=${f%.tile}.err
	timeout 60 "$T" emit "$f" -o "$o" 2>"$e"; rc=$?
	if [ $rc -eq 0 ] && grep -q '^# limits: emit only' "$f"; then
		[ "$(grep -c 'bar.sync' "$o")" -ge 100000 ] && echo PASS > "${f%.tile}.res" || echo "FAIL: limits $(basename "$f"): short output" > "${f%.tile}.res"
	elif [ $rc -eq 0 ]; then
		tg=$(awk '/^target /{print $2; exit}' "$f")
		"$PTXAS" --gpu-name "$tg" "$o" -o /dev/null 2>"${f%.tile}.log" && echo PASS > "${f%.tile}.res" ||
			{ echo "FAIL: limits $(basename "$f"): ptxas"; head -3 "${f%.tile}.log"; } > "${f%.tile}.res"
	elif [ $rc -eq 1 ] && grep -q "^$f:[0-9]*:[0-9]*: error: " "$e"; then echo PASS > "${f%.tile}.res"
	else { echo "FAIL: limits $(basename "$f"): exit $rc"; head -3 "$e"; } > "${f%.tile}.res"; fi
}
export -f limit_job; export T PTXAS
ls "$L"/*.tile | xargs -P 2 -I{} bash -c 'limit_job "$1"' _ {}
for f in "$L"/*.tile; do
	r=${f%.tile}.res
	if [ -f "$r" ] && [ "$(cat "$r")" = PASS ]; then ok; else fail=$((fail + 1)); cat "$r" 2>/dev/null || echo "FAIL: limits $(basename "$f"): no result"; fi
done

echo "== harness builds against the stub libcuda"
if [ -f "${CUDA:-/usr/local/cuda}/include/cuda.h" ]; then
	[ -x "$B/tilepx-run" ] && nm -u "$B/tilepx-run" | grep -q cuModuleLoadDataEx && ok || bad "tilepx-run was not built and linked"
	# kernels with a cluster launch through cuLaunchKernelEx (CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION)
	[ -x "$B/tilepx-run" ] && nm -u "$B/tilepx-run" | grep -q cuLaunchKernelEx && ok || bad "tilepx-run does not link cuLaunchKernelEx"
else
	echo "  (no CUDA headers: harness not built)"
fi

echo
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
