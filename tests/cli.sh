# Sourced by tests/run.sh: command-line conventions (usage errors exit 2,
# explain fails on a copy nothing lowers, gcc-style notes).
echo "== command line: usage errors exit 2, explain exit codes, notes"
"$T" emit --target 90 examples/reg_32x8.tile 2>"$OUT/err" >/dev/null; rc=$?
[ $rc = 2 ] && grep -q -- "--target: unknown target '90'" "$OUT/err" && ! grep -q ':0:0' "$OUT/err" && ok ||
	bad "a bad --target must exit 2 and name the option (exit $rc)"
"$T" explain tests/bad/no_variant.tile >"$OUT/ex" 2>"$OUT/err"; rc=$?
[ $rc = 1 ] && grep -q 'fallback' "$OUT/ex" && grep -q 'error: no variant lowers' "$OUT/err" && ok ||
	bad "explain of a copy with no variant must print the table and exit 1 (exit $rc)"
"$T" explain --json tests/bad/no_variant.tile >"$OUT/ex" 2>/dev/null; rc=$?
[ $rc = 1 ] && grep -q '"chosen": null' "$OUT/ex" && ok || bad "explain --json with no variant must exit 1 (exit $rc)"
"$T" explain examples/reg_32x8.tile >/dev/null 2>&1 && ok || bad "explain of a lowered program must exit 0"
"$T" check tests/bad/no_variant.tile 2>"$OUT/err"
[ "$(grep -c 'error:' "$OUT/err")" = 1 ] && [ "$(grep -c '^tests/bad/no_variant.tile:7:1: note: ' "$OUT/err")" = 6 ] && ok ||
	bad "a no-variant error must be one error line and one located note per candidate"
# the notes of the variants that got furthest come first: here reg's (a register index that moves), with what would help
"$T" check tests/bad/reg_region_loop_index.tile 2>"$OUT/err"
sed -n 4p "$OUT/err" | grep -q "note: reg (prio=10): .*moves with 'i'.*\`unroll\` does not change that" && ok ||
	bad "no-variant notes: the reg variant's reason must come first and say that unroll does not help ($(sed -n 4p "$OUT/err"))"
# a block whose header fails is skipped to its '}': one error, not a spurious one at the '}' or in the body
for f in tests/bad/when_condition_bad_var.tile tests/bad/repeat_count_unknown_block.tile; do
	"$T" check "$f" 2>"$OUT/err"
	[ "$(grep -c 'error:' "$OUT/err")" = 1 ] && ok || bad "$f: one error, got $(grep -c 'error:' "$OUT/err"): $(sed -n 4p "$OUT/err")"
done
# a store narrowed by a missing fact: explain names the fact, once (the twin with the fact gets no hint)
"$T" explain tests/explain/narrowed_by_facts.tile >"$OUT/ex" 2>&1
[ "$(grep -c "narrowed by the facts: 'assume N % 8 == 0' would give 128-bit accesses (now 16)" "$OUT/ex")" = 1 ] &&
	[ "$(grep -c 'narrowed by the facts' "$OUT/ex")" = 1 ] && ok || bad "explain must name the fact that widens the narrowed store, once"
# an error silences the warnings (their analyses assumed a program without errors), and says so
"$T" check tests/bad/cp_async_sm75_order.tile 2>"$OUT/err"
! grep -q 'warning:' "$OUT/err" && grep -q '^tests/bad/cp_async_sm75_order.tile: note: 1 warning not shown' "$OUT/err" && ok ||
	bad "an error and a warning: the warning must not be printed ($(head -1 "$OUT/err"))"
"$T" explain --json examples/reg_32x8.tile | head -1 |
	grep -q '"file": "examples/reg_32x8.tile", "col": 1, "dst_region": "A_smem", "src_region": "A"' && ok ||
	bad "explain --json records must carry file, column and both regions"

echo "== library surface: only tilepx_* exported; the public archive links alone; version macros"
extra=$(nm -g --defined-only "$B/libtilepx.a" | awk 'NF == 3 {print $3}' | grep -v '^tilepx_' || true)
[ -z "$extra" ] && ok || bad "libtilepx.a exports non-tilepx_ symbols: $(echo $extra | head -c 200)"
cat > "$OUT/pub.c" <<'PUB'
#include "tilepx/tilepx.h"
#include <stdio.h>
#include <string.h>
int main(void)
{
	static const char s[] = "target sm_90\nkernel k\nthreads 32\nparam A f32 [32]\nshared S f32 [32]\ncta copy S, A\n";
	tilepx_result r;
	int ok = tilepx_compile("x.tile", s, sizeof s - 1, NULL, TILEPX_EMIT, &r);
	ok = ok && r.output && strstr(r.output, ".entry k") && !strcmp(tilepx_version(), TILEPX_VERSION_STRING);
	tilepx_result_free(&r);
	return !ok;
}
PUB
${CC:-cc} -std=c11 -Iinclude "$OUT/pub.c" "$B/libtilepx.a" $(case "$B" in *san*) echo -fsanitize=address,undefined;; esac) \
	-o "$OUT/pub" 2>"$OUT/err" && "$OUT/pub" && ok || bad "a program using only the public header and libtilepx.a: $(head -2 "$OUT/err")"
"$T" --version | grep -q "^tilepx $(sed -n 's/.*TILEPX_VERSION_STRING "\(.*\)"/\1/p' include/tilepx/tilepx.h)$" && ok ||
	bad "--version must match TILEPX_VERSION_STRING"
# out of memory is an error result, not an exit(3) or a crash (no ASan: it needs address space)
case "$B" in *san*) ;; *)
	{ printf 'target sm_90\nkernel k\nthreads 32\nparam A f32 [32]\nshared S f32 [32]\n'
	  for i in $(seq 1 20000); do echo "cta copy S, A"; done; } > "$OUT/big.tile"
	seen=0
	for lim in 16000 20000 25000 30000; do
		( ulimit -v $lim; "$T" emit "$OUT/big.tile" -o "$OUT/big.ptx" ) 2>"$OUT/err" >/dev/null; rc=$?
		[ $rc -le 1 ] && ok || bad "out of memory at ulimit -v $lim: exit $rc, $(head -1 "$OUT/err")"
		[ $rc = 1 ] && grep -q 'out of memory' "$OUT/err" && seen=1
	done
	[ $seen = 1 ] && ok || bad "no memory limit produced an 'out of memory' error" ;;
esac

echo "== documentation is self-contained: no user-facing text points outside the repository"
leaks=$(grep -l -E '\.\./shared|TILE_LANGUAGE|PTX_REFERENCE|TIRX_NOTES|[Ss]eed 00[0-9]' README.md docs/*.md examples/*.tile include/tilepx/*.h 2>/dev/null | grep -v 'docs/gpu-log' || true)
[ -z "$leaks" ] && ok || bad "user-facing files refer outside the repository: $leaks"
helps=$("$T" --help; for c in check emit explain regclasses nvvm-select; do "$T" $c --help; done)
echo "$helps" | grep -q -E '\.\./shared|TILE_LANGUAGE|[Ss]eed 00[0-9]' && bad "--help text refers outside the repository" || ok
for f in docs/language.md docs/design.md docs/ptx-notes.md; do [ -s "$f" ] && ok || bad "$f missing"; done

echo "== explain of the persistent GEMMs in bounded memory (bank counts enumerate only the shared side's variables)"
# a staged epilogue's copy C[tile] <- Cs once enumerated every tile index
# (65536 values of the 2-D walk) and kept each trace: out of memory at 4 GB
# (not under the sanitizers: ASan cannot reserve its shadow under a ulimit)
case "$B" in *san*) ;; *)
for f in bench/gemm_sm90_walk_bf16_st.tile bench/gemm_sm90_walk_st.tile; do
	( ulimit -v 400000; "$T" explain "$f" ) > "$OUT/explain_mem.txt" 2>&1 && ok || bad "explain $f: $(tail -1 "$OUT/explain_mem.txt")"
done ;;
esac

echo "== command line: every binary answers --help and --version (stdout, exit 0)"
for bin in tilepx ptxemu tilepx-run randtile; do
	[ -x "$B/$bin" ] || continue # tilepx-run is built only where cuda.h is
	"$B/$bin" --help >"$OUT/help" 2>"$OUT/err" && grep -q "^usage: $bin" "$OUT/help" && [ ! -s "$OUT/err" ] && ok ||
		bad "$bin --help must print its usage on stdout and exit 0"
	"$B/$bin" --version >"$OUT/ver" 2>"$OUT/err" && [ "$(wc -l <"$OUT/ver")" = 1 ] &&
		grep -q "^$bin.* $(sed -n 's/^#define TILEPX_VERSION_STRING "\(.*\)"/\1/p' include/tilepx/tilepx.h)\$" "$OUT/ver" && ok ||
		bad "$bin --version must print one line with TILEPX_VERSION_STRING and exit 0 ($(head -1 "$OUT/ver"))"
done

echo "== command line: -Werror makes a warning an error (exit 1, no output written), -w silences warnings"
W=tests/warn/cp_async_never_waited.tile
for cmd in check emit explain; do
	rm -f "$OUT/w.ptx"
	o=; [ $cmd = emit ] && o="-o $OUT/w.ptx"
	"$T" $cmd -Werror $W $o >/dev/null 2>"$OUT/err"; rc=$?
	[ $rc = 1 ] && grep -q "^$W:10:1: error: .*never committed.* \[-Werror\]\$" "$OUT/err" && ! grep -q 'warning:' "$OUT/err" &&
		[ ! -e "$OUT/w.ptx" ] && ok || bad "$cmd -Werror: a warning must be an error, exit 1, no output (exit $rc)"
	"$T" $cmd -w $W $o >/dev/null 2>"$OUT/err"; rc=$?
	[ $rc = 0 ] && [ ! -s "$OUT/err" ] && { [ $cmd != emit ] || [ -s "$OUT/w.ptx" ]; } && ok ||
		bad "$cmd -w: no warning printed, exit 0, output written (exit $rc: $(head -1 "$OUT/err"))"
done
"$T" check -Wfoo $W 2>"$OUT/err"; [ $? = 2 ] && grep -q 'unknown option -Wfoo' "$OUT/err" && ok || bad "-Wfoo must be a usage error"
"$T" check -Werror examples/reg_32x8.tile 2>"$OUT/err" && [ ! -s "$OUT/err" ] && ok || bad "-Werror without warnings must exit 0"

echo "== command line: --max-errors N reports the first N errors and says how many it did not show"
printf 'target sm_90\nkernel k\nthreads 128\nparam A f32 [128]\nshared S f32 [128]\n' >"$OUT/me.tile"
for i in 1 2 3 4; do echo "cta copy S, X$i" >>"$OUT/me.tile"; done
"$T" check --max-errors 1 "$OUT/me.tile" 2>"$OUT/err"; rc=$?
[ $rc = 1 ] && [ "$(grep -c 'error:' "$OUT/err")" = 1 ] && grep -q "unknown buffer 'X1'" "$OUT/err" &&
	grep -q "^$OUT/me.tile: note: 3 more errors not shown (--max-errors 1; 0 shows all)\$" "$OUT/err" && ok ||
	bad "--max-errors 1: one error and '3 more errors not shown' (exit $rc: $(tail -1 "$OUT/err"))"
"$T" check --max-errors 0 "$OUT/me.tile" 2>"$OUT/err"
[ "$(grep -c 'error:' "$OUT/err")" = 4 ] && ! grep -q 'not shown' "$OUT/err" && ok || bad "--max-errors 0 must show every error"
"$T" check --max-errors x "$OUT/me.tile" 2>"$OUT/err"; [ $? = 2 ] && grep -q -- '--max-errors' "$OUT/err" && ok ||
	bad "--max-errors x must be a usage error"

echo "== command line: --color=auto|always|never, gcc's colours; auto: a terminal and NO_COLOR unset"
W=tests/warn/cp_async_never_waited.tile
esc=$(printf '\033')
"$T" check --color=always $W 2>"$OUT/err"
grep -q "${esc}\[01;35mwarning:${esc}\[m" "$OUT/err" && grep -q "${esc}\[01;36mnote:${esc}\[m" "$OUT/err" &&
	grep -q "${esc}\[01;32m^${esc}\[m" "$OUT/err" && ok || bad "--color=always: warning magenta, note cyan, caret green"
"$T" check --color=always "$OUT/me.tile" 2>"$OUT/err"
grep -q "${esc}\[01;31merror:${esc}\[m" "$OUT/err" && ok || bad "--color=always: error red bold"
for how in --color=never --color=auto ""; do # stderr is a file: never coloured
	"$T" check $how $W 2>"$OUT/err"
	! grep -q "$esc" "$OUT/err" && grep -q "^$W:10:1: warning: " "$OUT/err" && ok || bad "check $how to a file must not colour"
done
"$T" check --color=sometimes $W 2>"$OUT/err"; [ $? = 2 ] && grep -q -- "--color: 'sometimes'" "$OUT/err" && ok ||
	bad "--color=sometimes must be a usage error"
if command -v script >/dev/null; then # a terminal: coloured unless NO_COLOR
	script -qec "$T check $W" /dev/null >"$OUT/tty" 2>&1
	grep -q "${esc}\[01;35mwarning:" "$OUT/tty" && ok || bad "on a terminal diagnostics must be coloured"
	NO_COLOR=1 script -qec "$T check $W" /dev/null >"$OUT/tty" 2>&1
	! grep -q "$esc" "$OUT/tty" && grep -q 'warning:' "$OUT/tty" && ok || bad "NO_COLOR must turn colour off on a terminal"
fi

echo "== did you mean: only a unique nearest name within edit distance 2 is suggested"
printf 'target sm_90\nkernel k\nthreads 128\nparam A f32 [128]\nshared S f32 [128]\nshared Sb f32 [128]\ncta copy Sc, A\ncta copy S, Xyzzy\n' >"$OUT/dym.tile"
"$T" check "$OUT/dym.tile" 2>"$OUT/err"
[ "$(grep -c 'error:' "$OUT/err")" = 2 ] && ! grep -q 'did you mean' "$OUT/err" && ok ||
	bad "a tie (S, Sb for Sc) or a far name must get no suggestion ($(grep 'did you mean' "$OUT/err"))"

echo "== ptxemu: getopt_long (options anywhere among the files), '-' reads standard input"
"$B/ptxemu" examples/reg_32x8.tile --max-threads 4096 >"$OUT/emu" 2>&1 && grep -q '^PASS reg_32x8' "$OUT/emu" && ok ||
	bad "ptxemu FILE --max-threads N: an option after the file must be taken ($(tail -1 "$OUT/emu"))"
"$B/ptxemu" - <examples/reg_32x8.tile >"$OUT/emu" 2>&1 && grep -q '^PASS reg_32x8' "$OUT/emu" && ok ||
	bad "ptxemu - must read the program from standard input ($(tail -1 "$OUT/emu"))"
"$B/ptxemu" --max-threads 2>"$OUT/err"; [ $? = 2 ] && grep -q 'max-threads' "$OUT/err" && ok ||
	bad "ptxemu --max-threads without a value must exit 2"
"$B/ptxemu" --no-such examples/reg_32x8.tile >/dev/null 2>"$OUT/err"; [ $? = 2 ] && grep -q '^usage: ptxemu' "$OUT/err" && ok ||
	bad "ptxemu with an unknown option must exit 2 with its usage"
