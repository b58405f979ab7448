#!/usr/bin/env bash
# The test suite behind `make test`. Ends with "N passed, M failed".
# TILEPX_BUILD selects the build directory (build/san under `make sanitize`).
# RANDOM_CASES sets how many random programs the generator checks (default 200).
set -u
cd "$(dirname "$0")/.."
# make test T=FILE...: every check that applies to each file (tests/lib.sh's
# CHECK_FILES says which, from where the file lives)
if [ -n "${TEST_FILTER:-}" ] && [ -z "${TEST_FILTERED:-}" ]; then
	files_only=1
	for w in $TEST_FILTER; do [ -f "$w" ] || files_only=0; done
	if [ $files_only = 1 ]; then
		. tests/lib.sh
		run_files $TEST_FILTER
		echo
		echo "$pass passed, $fail failed"
		[ $fail -eq 0 ]; exit
	fi
fi
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
# the set-up, ok/bad, run_each and the per-file checks (check_X FILE)
. tests/lib.sh

echo "== unit tests"
for u in "$B"/tests/*; do
	[ -x "$u" ] || continue
	line=$("$u" 2>"$OUT/unit.log" | tail -1)
	p= f=
	[[ $line =~ ^([0-9]*)\ passed,\ ([0-9]*)\ failed$ ]] && p=${BASH_REMATCH[1]} f=${BASH_REMATCH[2]}
	if [ -z "$p" ]; then bad "$u crashed or printed no summary"; cat "$OUT/unit.log"; continue; fi
	pass=$((pass + p)); fail=$((fail + f))
	[ "$f" = 0 ] || { echo "FAIL: $u"; cat "$OUT/unit.log"; }
	echo "  $(basename "$u"): $line"
done

echo "== bad inputs (tests/bad): exact located error, exit 1, no output file"
# and check reports the same first error as emit (check fails wherever emit fails)
bad_batch $(files_of check_bad)
run_each check_bad $(files_of check_bad)

echo "== seeded wgmma bugs, with roles and without: every program with a wgmma is accepted, and rejected with a wgmma error after a fence deleted or moved above its init, the accumulator stored before wgmma.wait 0, or a stage released or refilled before the wgmma.wait N > 0 that retires its reader"
wg=(); for f in $(files_of check_roles_wgmma); do file_has "$f" 'warpgroup mma' && wg+=("$f"); done
analyse_batch "${wg[@]}"
run_each check_roles_wgmma $(files_of check_roles_wgmma)
echo "  ${tags[roles]:-0} of them with roles"

echo "== fuzz reproducers (tests/fuzz/regressions): each is rejected or emitted, never a crash"
run_each check_fuzz_repro $(files_of check_fuzz_repro)

source tests/output.sh
source tests/cli.sh
source tests/tooling.sh
source tests/shared.sh

echo "== the CPU reference is independent of the emitter (src/ref imports no layout, region or variant code)"
refo=$B/obj/ref/ref.o
if [ -f "$refo" ]; then
	# every object of src/ref (ref.o, convert.o): what they define among themselves is theirs;
	# the two decisions the language leaves to tilepx, read from the analyses' side tables
	# (src/base/stmtmap.c): an expect_tx's computed bytes, a 'swizzle auto' buffer's swizzle;
	# and the statement walker (src/base/walk.c: control flow only, no layout, region or partition code)
	own=$(nm --defined-only "$B"/obj/ref/*.o | awk 'NF == 3 {print $3}')
	extra=$(nm -u "$B"/obj/ref/*.o | awk 'NF == 2 {print $2}' | grep -v -x -E 'calloc|free|malloc|memcpy|memset|dtype_bytes|dtype_int_bits|diag_error|diag_note|expect_tx_bytes|buffer_swizzle|walk_begin|walk_next|walk_stmts|_GLOBAL_OFFSET_TABLE_|__[A-Za-z0-9_]*' | grep -v -x -F "$own" | sort -u || true)
	[ -z "$extra" ] && ok || bad "src/ref uses code outside the language definition: $extra"
	grep -q -E '#include "\.\./(layout|variants|dispatch)/' src/ref/*.c && bad "src/ref includes emitter headers" || ok
else
	bad "$refo missing"
fi

echo "== layers: each folder of src/ and emu/ is a layer; no upward edge, no circle (tools/layers.sh)"
# the graph from the objects' symbols: A -> B when A uses what B defines
if tools/layers.sh "$B" >"$OUT/layers.log" 2>&1; then ok; else bad "tools/layers.sh: $(head -3 "$OUT/layers.log")"; fi
# docs/design.md's layer table names tools/layers.sh's folders, bottom first
want=$(sed -n "s/^FOLDERS='\(.*\)'$/\1/p" tools/layers.sh)
got=$(awk '/^\*\*Layers\.\*\*/ {on = 1} on && /^\| [0-9]+ \| / {split($0, c, "|"); gsub(/ /, "", c[3]); printf "%s%s", sep, c[3]; sep = " "} on && /^$/ && sep {n++} n > 1 {exit}' docs/design.md)
[ -n "$want" ] && [ "$got" = "$want" ] && ok || bad "docs/design.md's layer table lists '$got', tools/layers.sh '$want'"
echo "== docs/design.md names only files that exist (a path in backquotes, from the top or from src/; NAME is a placeholder, build/ is generated)"
missing=$(grep -o '`[A-Za-z0-9_.*/-]*/[A-Za-z0-9_.*-]*\.\(c\|h\|tile\|sh\|py\|md\|def\|tpl\|ptx\)`' docs/design.md |
	tr -d '`' | sort -u | grep -v -e NAME -e '^build/' | while read -r f; do compgen -G "$f" >/dev/null || compgen -G "src/$f" >/dev/null || echo "$f"; done)
[ -z "$missing" ] && ok || bad "docs/design.md names files that do not exist: $(echo $missing)"
echo "== no file of src/ over 1,200 lines (docs/design.md, Layers)"
big=$(find src -name '*.[ch]' -exec wc -l {} + | awk '$2 != "total" && $1 > 1200 {print $2 " " $1}')
[ -z "$big" ] && ok || bad "files over 1,200 lines: $big"
echo "== no function over 100 lines in src/, emu/ or tools/ (tools/longfuncs.sh)"
long=$(tools/longfuncs.sh)
[ -z "$long" ] && ok || bad "functions over 100 lines: $long"

echo "== the pipeline: --dump-after prints a pass's state; an unknown pass is a usage error"
"$T" check --dump-after=bogus examples/ws_pipeline.tile >/dev/null 2>&1; rc=$?
[ $rc -eq 2 ] && ok || bad "check --dump-after=bogus: exit $rc, want 2"
d=$("$T" check --dump-after=select examples/ws_pipeline.tile 2>&1 >/dev/null)
echo "$d" | grep -q '^after select (each copy.s variant): kernel ws_pipeline' &&
	echo "$d" | grep -q 'line [0-9]*: copy_async As, A mbarrier full -> tma ' && ok || bad "check --dump-after=select: $(echo "$d" | head -3)"
d=$("$T" emit -o /dev/null --dump-after=async examples/ws_pipeline.tile 2>&1)
echo "$d" | grep -q '^after async' && ok || bad "emit --dump-after=async: $(echo "$d" | head -3)"

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
analyse_batch $(files_of check_example)
prepare_modules $(files_of check_example)
run_each check_example $(files_of check_example)
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
run_each check_linked $(files_of check_linked)
echo "== wgmma modules: the ptxas -v notice check fails on a module ptxas patches (tests/wgmma/)"
run_each check_wgmma_notice $(files_of check_wgmma_notice)

echo "== golden files assemble"
run_each check_golden_asm $(files_of check_golden_asm)

echo "== GPU test programs assemble (tests/gpu)"
analyse_batch $(files_of check_gpu_asm)
prepare_modules $(files_of check_gpu_asm) $(for tg in $B8_TARGETS; do echo --target=$tg tests/gpu/ldstmatrix_b8.tile; done)
run_each check_gpu_asm $(files_of check_gpu_asm)
# a constant repeat of a few synchronous copies is unrolled by tilepx: as a PTX
# loop ptxas 13.0 gives bench/codegen/reg_stream_g 30 registers, straight code 24 (nvcc's twin's)
"$T" emit bench/codegen/reg_stream_g.tile -o "$OUT/rsg.ptx" && ! grep -q '^\$L__' "$OUT/rsg.ptx" &&
	"$PTXAS" -v --gpu-name sm_90 "$OUT/rsg.ptx" -o /dev/null 2>&1 | awk '/Used [0-9]+ registers/ { r = $5 } END { exit !(r > 0 && r <= 24) }' &&
	ok || bad "reg_stream_g: its repeat 8 is not unrolled, or ptxas needs more than nvcc's 24 registers"

echo "== bench/codegen programs assemble (bench/codegen: the .tile of each pair)"
analyse_batch $(files_of check_codegen)
prepare_modules $(files_of check_codegen)
run_each check_codegen $(files_of check_codegen)
echo "== row kernels: bench/gen_rows.py writes the committed softmax and RMSNorm programs"
gen_dir=$(mktemp -d "$S/rows.XXXXXX") && mkdir -p "$gen_dir/bench" "$gen_dir/tests/gpu"
(cd "$gen_dir" && python3 "$OLDPWD/bench/gen_rows.py" 2>/dev/null)
for f in bench/softmax_rows.tile bench/rmsnorm_rows.tile bench/softmax_rows_32k.tile bench/rmsnorm_rows_32k.tile \
	tests/gpu/softmax_rows_small.tile tests/gpu/rmsnorm_rows_small.tile tests/gpu/softmax_rows_1pass_small.tile \
	tests/gpu/rmsnorm_rows_1pass_small.tile tests/gpu/softmax_rows_smem_small.tile; do
	cmp -s "$f" "$gen_dir/$f" && ok || bad "$f differs from what bench/gen_rows.py writes (edit the generator, run it)"
done
echo "== attention kernels: bench/gen_attention.py writes the committed example, bench file and tests/gpu programs"
gen_dir=$(mktemp -d "$S/attn.XXXXXX") && mkdir -p "$gen_dir/bench" "$gen_dir/tests/gpu" "$gen_dir/examples"
(cd "$gen_dir" && python3 "$OLDPWD/bench/gen_attention.py" 2>/dev/null)
for f in examples/attention_fwd_sm90.tile bench/attention_fwd_sm90.tile bench/attention_fwd_sm90_tuned.tile tests/gpu/attention_*_small.tile; do
	cmp -s "$f" "$gen_dir/$f" && ok || bad "$f differs from what bench/gen_attention.py writes (edit the generator, run it)"
done
[ "$(ls "$gen_dir"/tests/gpu | wc -l)" = "$(ls tests/gpu/attention_*_small.tile | wc -l)" ] && ok ||
	bad "bench/gen_attention.py writes tests/gpu programs that are not committed"
check_attention_bench() { # FILE: the benchmarked kernels (their small twins run in tests/gpu) emit and assemble
	"$T" emit "$1" -o "$S/a.ptx" 2>"$S/err" && assemble "$S/a.ptx" sm_90a && ok ||
		{ bad "$1: emit or ptxas"; head -5 "$S/err" "$S/ptxas.log"; }
}
run_each check_attention_bench bench/attention_*.tile
echo "== epilogue kernels: bench/gen_epilogues.py writes the committed bf16 epilogue GEMMs and their plain twin, bench/gen_pingpong.py the ping-pong ones"
epi_dir=$(mktemp -d "$S/epilogues.XXXXXX") && mkdir -p "$epi_dir/bench"
(cd "$epi_dir" && python3 "$OLDPWD/bench/gen_epilogues.py" 2>/dev/null)
for e in tmast bias bias_relu bias_gelu bias_gelu_ov bias_gelu_ovh bias_gelu_ovh_wg bias_gelu_ew bias_gelu_ewd1 bias_gelu_ovh_s3 bias_silu; do
	f=bench/gemm_sm90_walk_bf16_$e.tile
	cmp -s "$f" "$epi_dir/$f" && ok || bad "$f differs from what bench/gen_epilogues.py writes (edit the generator, run it)"
done
for f in bench/gemm_sm90_linear_bf16_bias_gelu_ovh.tile bench/gemm_sm90_linear_bf16_bias_gelu_ovh_wg.tile; do
	cmp -s "$f" "$epi_dir/$f" && ok || bad "$f differs from what bench/gen_epilogues.py writes (edit the generator, run it)"
done
(cd "$epi_dir" && python3 "$OLDPWD/bench/gen_pingpong.py" 2>/dev/null)
for f in bench/gemm_sm90_pingpong_alpha_beta.tile bench/gemm_sm90_pingpong_bf16_bias_gelu.tile bench/gemm_sm90_pingpong_f16.tile \
	bench/gemm_sm90_pingpong_fp8.tile; do
	cmp -s "$f" "$epi_dir/$f" && ok || bad "$f differs from what bench/gen_pingpong.py writes (edit the generator, run it)"
done
echo "== codegen registers: no bench/codegen pair needs more than nvcc's twin (bench/codegen/nvcc_regs)"
# issue 23 section 5; the counts are ptxas 13.0's for nvcc's PTX (make bench-codegen's r_nv)
# (the module and its ptxas -v log are the previous section's, emitted and assembled once)
while read -r n nv; do
	case $n in '#'* | '') continue ;; esac
	target_of "bench/codegen/$n.tile"; r=
	if emit_once "bench/codegen/$n.tile" && assemble_once "$EMITTED" "$tg"; then
		r=$(awk '/Used [0-9]+ registers/ { r += $5 } END { print r + 0 }' "$ASM_LOG")
	fi
	[ "${r:-0}" -gt 0 ] && [ "$r" -le "$nv" ] && ok || bad "bench/codegen/$n: ptxas gives tilepx's code ${r:-no} registers, nvcc's twin $nv"
done < bench/codegen/nvcc_regs
# the counts above come from assemble_batch's logs (when that section batched them): the
# first module of two batches against its own run (tests/asmbatch_check.sh compares every module)
nb=0
for p in "$OUT"/asm_plan*/*:*; do
	[ -f "$p" ] && [ $nb -lt 2 ] || continue
	mapfile -t lines < "$p"; m=${lines[0]%% *}; tg=${p##*/}; tg=${tg%:*}
	[ ${#lines[@]} -gt 1 ] && [[ $m == */m_bench_codegen/* ]] && [ -f "$m.$tg.log" ] || continue
	nb=$((nb + 1))
	asm_batch_same "$m" "$tg" && ok || bad "the batched ptxas -v log of $m is not its own run's"
done

echo "== explain (tests/explain: '# explain:' lines name the fields the JSON records must have)"
# (and check_explain's other targets: cp.async on sm_80 and sm_90, tcgen05 on every target)
analyse_batch $(files_of check_explain)
prepare_modules $(files_of check_explain) $(for tg in $LDGSTS_TARGETS; do echo --target=$tg tests/explain/ldgsts_*.tile; done) \
	$(for tg in $TCGEN05_TARGETS $TCGEN05_REFUSED; do echo --target=$tg tests/explain/tcgen05_*.tile; done)
run_each check_explain $(files_of check_explain)

echo "== register classes and the matrix-copy selector"
"$T" regclasses > "$OUT/rc" && diff -u tests/expected/regclasses.txt "$OUT/rc" && ok || bad "regclasses table"
"$T" nvvm-select --table > "$OUT/tbl" && diff -u tests/expected/nvvm_table.txt "$OUT/tbl" && ok || bad "nvvm-select table"
while IFS='|' read -r args want code; do
	[ -z "$args" ] && continue
	case "$args" in \#*) continue ;; esac
	got=$("$T" nvvm-select $args 2>&1); rc=$?
	got=${got%%$'\n'*}
	if [ "$got" = "$want" ] && [ "$rc" = "$code" ]; then ok; else bad "nvvm-select $args: got '$got' ($rc), want '$want' ($code)"; fi
done < tests/expected/nvvm_select_cases.txt
# every valid form of the table assembles (b8 forms on sm_100a)
"$T" nvvm-select --table | awk -F'\t' '$10 != "(none)" {print $10}' | sort -u > "$OUT/forms"
form_module() { # FORM: $FORM_PTX, a kernel of one instruction of the form (named after it)
	local form=$1 n regs ins i name=${1//[^A-Za-z0-9]/_}
	case "$form" in
	ldmatrix.*m16n16.x1*|stmatrix.*x2*|ldmatrix.*x2*) n=2 ;;
	ldmatrix.*m16n16.x2*|*x4*) n=4 ;;
	*) n=1 ;;
	esac
	case "$form" in ldmatrix.*m16n16.x1*) n=2 ;; ldmatrix.*m16n16.x2*) n=4 ;; esac
	regs=; for ((i = 1; i <= n; i++)); do regs+="${regs:+, }%r$i"; done
	case "$form" in
	ldmatrix*) ins="$form {$regs}, [%r10];" ;;
	stmatrix*) ins="$form [%r10], {$regs};" ;;
	*) ins="$form %r1, %r2;" ;;
	esac
	FORM_PTX=$OUT/form/$name.ptx
	printf '.version 8.6\n.target sm_100a\n.address_size 64\n.visible .entry k_%s()\n{\n.reg .b32 %%r<12>;\nmov.u32 %%r10, 0;\n%s\nret;\n}\n' "$name" "$ins" > "$FORM_PTX"
}
check_selector_form() { # FORM: one instruction of the form, in a kernel, assembles (assemble_batch's 0, or alone)
	form_module "$1"
	{ [ -f "$FORM_PTX.sm_100a.asm" ] && cached_rc "$FORM_PTX.sm_100a.asm"; } || assemble "$FORM_PTX" sm_100a && ok ||
		{ bad "selector form '$1' does not assemble"; cat "$S/ptxas.log"; }
}
mkdir -p "$OUT/form"; fpairs=()
while read -r form; do form_module "$form"; fpairs+=("sm_100a:$FORM_PTX"); done < "$OUT/forms"
assemble_batch "${fpairs[@]}"
run_each check_selector_form $(cat "$OUT/forms")

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
# names it, so only the .d files make api/api.o depend on it (make -W: as if changed)
MAKEFLAGS= make -n --no-print-directory -W src/../include/tilepx/tilepx.h B="$B" "$B/obj/api/api.o" 2>&1 | grep -q -- '-c src/api/api.c' && ok ||
	bad "make: a change to include/tilepx/tilepx.h does not rebuild $B/obj/api/api.o"

echo "== random programs (seeded): every program emits and assembles, or is rejected with a located error"
N=${RANDOM_CASES:-200}
SEED=${RANDOM_SEED:-20261122}
mkdir -p "$OUT/rand"
"$B/randtile" "$SEED" "$N" "$OUT/rand" || bad "randtile failed"
# one emit for all (NAME.ptx beside each NAME.tile); check_random emits alone what it left without a module
"$T" emit "$OUT"/rand/*.tile > /dev/null 2>&1
# and a few ptxas runs for all (check_random assembles alone what they left without a result)
rpairs=()
for f in "$OUT"/rand/*.tile; do target_of "$f"; rpairs+=("$tg:${f%.tile}.ptx"); done
assemble_batch "${rpairs[@]}"
run_each check_random "$OUT"/rand/*.tile
rrej=${tags[rejected]:-0}
rfail=${tags[failed]:-0}
n_res=$((rrej + ${tags[assembled]:-0} + rfail)); n_tile=$(ls "$OUT"/rand/*.tile | wc -l)
[ "$n_res" = "$n_tile" ] && ok || bad "random: $n_tile programs but $n_res results"
echo "  ${tags[assembled]:-0} assembled, $rrej rejected with a located error, $rfail failed"
[ $rrej -le $((N / 4)) ] && ok || bad "random: too many programs rejected ($rrej of $N): the generator drifts"
# randtile writes a cp.async copy_async only where 4-byte pieces fit (elements of
# 4 bytes or more in any layout, narrower ones in aligned row-major runs): each must lower
# (check_random tags them: async, and async_refused for one rejected)
nasync=${tags[async]:-0} rasync=${tags[async_refused]:-0}
echo "  $nasync random cp.async programs, $rasync refused"
[ $rasync -eq 0 ] && ok || bad "random: $rasync cp.async programs that 4-byte pieces can copy were refused"

echo "== no stand-in stride in emitted code: the proofs' row stride of runtime-stride params (a multiple of 2^21 + 1) never reaches a module"
# every module the suite emits (the random ones when that section ran), and the goldens
standin_batch $(files_of check_standin)
run_each check_standin $(files_of check_standin)
standin=$(standin_scan tests/golden/*.ptx $(ls "$OUT"/rand/*.ptx 2>/dev/null))
[ -z "$standin" ] && ok || { bad "a stand-in row stride reached emitted code"; echo "$standin" | head -5; }

echo "== emulated execution (build/ptxemu): emitted PTX run on the CPU, every param byte against the CPU reference"
emu_run() { # FILES...: one result per kernel
	local p=$pass f=$fail
	run_each check_emulated "$@"
	echo "  $((pass - p)) kernels passed, $((fail - f)) failed, ${tags[skip]:-0} skipped (too many threads to emulate)"
}
emulate_batch $(files_of check_emulated)
emu_run $(files_of check_emulated)
emitted=()
for f in "$OUT"/rand/*.tile; do [ -s "${f%.tile}.ptx" ] && emitted+=("$f"); done
[ ${#emitted[@]} -gt 0 ] && { emulate_batch "${emitted[@]}"; emu_run "${emitted[@]}"; }

echo "== random reductions (tools/randtile --reduce): reduce.max/min/sum of random register layouts, emulated against the CPU reference"
# lane, warp and register bits of rows and columns drawn at random; each program
# must be accepted and its sums match the reference bit for bit
mkdir -p "$OUT/rand_reduce"
"$B/randtile" --reduce "${RANDOM_SEED:-20261122}" "${REDUCE_CASES:-40}" "$OUT/rand_reduce" || bad "randtile --reduce failed"
p0=$pass f0=$fail
emulate_batch "$OUT"/rand_reduce/*.tile
run_each check_emulated "$OUT"/rand_reduce/*.tile
echo "  $((pass - p0)) reductions passed, $((fail - f0)) failed"

echo "== runtime sizes: ragged programs at sizes 1, tile-1, tile, tile+1 and a prime; broken facts refused"
run_each check_sizes $(files_of check_sizes)
echo "== listed launches: the pipelines at several trip counts ('# runs:')"
run_each check_runs $(files_of check_runs)
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
# a rank-3 tensor map's outer stride (S * 8192 * 4 bytes here) must stay below 2^40 (cuTensorMapEncodeTiled):
# refused before anything is allocated
{ printf 'target sm_90\nkernel big3\nthreads 128\nparam BH u32\nparam S u32\nassume BH <= 4\ngrid cdiv(S, 64), BH\n'
  printf 'param Q f32 [BH, S, 8192] tma\nshared T f32 [64, 32]\nmbarrier bar\nmbarrier.init bar\nmbarrier.expect_tx bar\n'
  printf 'cta copy_async T, Q[ctaid_y, ctaid*64 : ctaid*64 + 64, 0:32] mbarrier bar\nmbarrier.wait bar\n'
} > "$OUT/big3.tile"
want="FAIL big3: S=33554432 gives dimension 0 of 'Q' a stride of 2^40 bytes or more, past what a tensor map encodes"
got=$("$B/ptxemu" --set BH=1 --set S=33554432 "$OUT/big3.tile" 2>&1 | head -1)
[ "$want" = "$got" ] && ok || bad "tensor-map stride past 2^40: want '$want', got '$got'"
want="FAIL ragged_copy_2d: scalar param 'M' has no value (pass --set M=N)"
got=$(sed '/^# set:/d' examples/ragged_copy_2d.tile > "$OUT/noset.tile"; "$B/ptxemu" "$OUT/noset.tile" 2>&1 | head -1)
[ "$want" = "$got" ] && ok || bad "missing value: want '$want', got '$got'"

source tests/runners.sh

echo "== hazard warnings (tests/warn, and tests/emu_fail programs with a '# warn:' line: the first diagnostic; exit 0), and none for the examples and their fixed twins in tests/gpu"
check_batch $(files_of check_warn) $(files_of check_no_warning)
run_each check_warn $(files_of check_warn)
run_each check_no_warning $(files_of check_no_warning)

source tests/banks.sh
source tests/races.sh

echo "== emulator failures (tests/emu_fail: hand-written PTX the GPU would hang on; '# emu:' is the expected report)"
run_each check_emu_fail $(files_of check_emu_fail)

echo "== proof cost and the facts' magnitudes: every example with a runtime K or S is checked at K >= 8 and at K >= 2^30 (S likewise; CPU time at most 1.5x), the persistent attention kernels at S <= 2^14 and S <= 2^28 - 2^16, and the kernels with roles at K <= 64 and K <= 704"
# the roles proof explores the trip counts up to where the loop head's state
# repeats, whatever the facts' bounds: a count past that stands for every
# count a period larger. The same upper bound (2^30 + 2^16) in both variants;
# examples whose grid counts K's tiles have no launch at K >= 2^30 (skipped)
C=$OUT/check_cost; mkdir -p "$C"
cpu_check_ms() { # FILE: the least CPU ms (user + sys) of 3 runs of tilepx check; "" if rejected
	local f=$1 best="" t ms i TIMEFORMAT='%3U %3S'
	for i in 1 2 3; do
		t=$({ time "$T" check "$f" >/dev/null 2>"$C/err"; } 2>&1) || { echo ""; return; }
		ms=$(echo "$t" | awk '{ printf "%d", ($1 + $2) * 1000 }')
		[ -z "$best" ] || [ "$ms" -lt "$best" ] && best=$ms
	done
	echo "$best"
}
# the attention example's loop count is cdiv(S, 192) over the sequence length S
for f in examples/*.tile; do
	for v in K S; do
		grep -q "^param  *$v u32" "$f" && grep -q "^assume $v <= " "$f" || continue
		[ $v = K ] && grep '^grid' "$f" | grep -q 'K' && continue
		n=$(basename "$f" .tile) big=1073741824
		sed "s/^assume $v <= .*/assume $v <= 1073807360/" "$f" > "$C/$n.lo.tile"
		cp "$C/$n.lo.tile" "$C/$n.hi.tile"
		echo "assume $v >= 8" >> "$C/$n.lo.tile"
		echo "assume $v >= $big" >> "$C/$n.hi.tile"
		lo=$(cpu_check_ms "$C/$n.lo.tile"); hi=$(cpu_check_ms "$C/$n.hi.tile")
		if [ -z "$lo" ] || [ -z "$hi" ]; then bad "check cost $n: rejected at $v >= 8 or $v >= $big"; head -3 "$C/err"
		elif [ $((hi * 2)) -le $((lo * 3 + 40)) ]; then ok
		else bad "check cost $n: $hi ms at $v >= $big, $lo ms at $v >= 8"; fi
	done
done
# the persistent attention kernels (a walk around the K loop): S <= 16384 against
# S <= 2^28 - 2^16 (their walk's count, heads times row tiles, fits 32 bits)
for f in tests/gpu/attention_*_ps_small.tile; do
	n=$(basename "$f" .tile)
	sed "s/^assume S <= .*/assume S <= 16384/" "$f" > "$C/$n.lo.tile"
	sed "s/^assume S <= .*/assume S <= 268369920/" "$f" > "$C/$n.hi.tile"
	lo=$(cpu_check_ms "$C/$n.lo.tile"); hi=$(cpu_check_ms "$C/$n.hi.tile")
	if [ -z "$lo" ] || [ -z "$hi" ]; then bad "check cost $n: rejected at S <= 16384 or S <= 268369920"; head -3 "$C/err"
	elif [ $((hi * 2)) -le $((lo * 3 + 40)) ]; then ok
	else bad "check cost $n: $hi ms at S <= 268369920, $lo ms at S <= 16384"; fi
done
for f in examples/*.tile bench/*.tile; do
	grep -q '^param  *K u32' "$f" && grep -q '^assume K <= ' "$f" && grep -q '^ *when ' "$f" || continue
	for k in 64 704; do
		g=$C/$(basename "$f" .tile).k$k.tile
		{ cat "$f"; echo "assume K <= $k"; } > "$g"
		"$T" check "$g" 2>"$C/err" && ok || { bad "check $(basename "$f") with K <= $k"; head -3 "$C/err"; }
	done
done

echo "== emission cost grows with the program, not faster: per copy statement at 100,000 copies at most 2x the CPU time and 1.5x the arena bytes of 1,000 copies, for emit and explain --json (bench/emit_cost --ratio)"
# a ratio of CPU times (best of several runs), not a time: the machine is shared
if [ -x "$B/emit_cost" ]; then
	"$B/emit_cost" --ratio > "$OUT/emit_cost.log" 2>&1 && ok || bad "emission cost grows faster than the program"
	sed 's/^/  /' "$OUT/emit_cost.log"
else
	echo "  skipped: $B/emit_cost is not built (make sanitize does not build it)"
fi

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
check_limit() { # FILE: an error or emitted (and assembled), in bounded time
	local f=$1 o=${1%.tile}.ptx e=${1%.tile}.err rc tg
	timeout 60 "$T" emit "$f" -o "$o" 2>"$e"; rc=$?
	if [ $rc -eq 0 ] && grep -q '^# limits: emit only' "$f"; then
		[ "$(grep -c 'bar.sync' "$o")" -ge 100000 ] && ok || bad "limits $(basename "$f"): short output"
	elif [ $rc -eq 0 ]; then
		target_of "$f"; assemble "$o" "$tg" && ok || { bad "limits $(basename "$f"): ptxas"; head -3 "$S/ptxas.log"; }
	elif [ $rc -eq 1 ] && grep -q "^$f:[0-9]*:[0-9]*: error: " "$e"; then ok
	else bad "limits $(basename "$f"): exit $rc"; head -3 "$e"; fi
}
run_each check_limit "$L"/*.tile

echo "== harness: tilepx-run links no libcuda (the driver is opened at run time); without one it says so"
if [ -f "${CUDA:-/usr/local/cuda}/include/cuda.h" ]; then
	# its driver calls are forwarded (tools/cuda_dl.c) and its launches go through the library's launch layer
	[ -x "$B/tilepx-run" ] && nm "$B/tilepx-run" | grep -q ' T cuModuleLoadDataEx$' && ok || bad "tilepx-run was not built with tools/cuda_dl.c"
	[ -x "$B/tilepx-run" ] && nm "$B/tilepx-run" | grep -q ' T tilepx_cuda_launch$' && ok || bad "tilepx-run does not launch through tilepx_cuda_launch"
	readelf -d "$B/tilepx-run" | grep -q 'NEEDED.*libcuda' && bad "tilepx-run needs libcuda at load time" || ok
	"$B/tilepx-run" --help >"$OUT/help" 2>&1 && grep -q '^usage: tilepx-run' "$OUT/help" && ok || bad "tilepx-run --help"
	if ! ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1 '; then
		"$B/tilepx-run" examples/reg_32x8.tile >/dev/null 2>"$OUT/err"; rc=$?
		[ $rc = 1 ] && grep -q '^tilepx-run: no CUDA driver: libcuda.so.1 not found' "$OUT/err" && ok ||
			bad "tilepx-run without a driver: exit $rc, $(head -1 "$OUT/err")"
	fi
else
	echo "  (no CUDA headers: harness not built)"
fi

echo
[ -z "${TEST_TIMES:-}" ] || { section_cpu; suite_cpu_ms; builtin echo "  total CPU $(((cpu_ms - cpu_start) / 1000)) s"; }
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
