# Sourced by tests/run.sh: the tool conventions of issue 39 that are not
# diagnostics' text: -lineinfo, --diagnostics-format=json, -D NAME=VALUE.

echo "== -lineinfo: .file and a .loc before each statement's instructions (nvcc's -lineinfo); only those lines differ, ptxas -lineinfo takes them, ptxemu reads them"
L=tests/lineinfo/loops.tile
"$T" emit -lineinfo "$L" -o "$OUT/li.ptx" 2>"$OUT/err"
# the kernel line (prologue), lines 11 and 12, the loop's hoisted addresses (14), then each of
# the two unrolled trips: the loop's own code (13) and its body (14, 15); the kernel line (ret)
locs=$(awk '$1 == ".loc" { printf "%s:%s ", $3, $4 }' "$OUT/li.ptx")
[ "$locs" = "6:8 11:1 12:1 14:3 13:1 14:3 15:3 13:1 14:3 15:3 6:8 " ] && ok || bad "$L: .loc lines $locs"
grep -q -x ".file 1 \"$(cd "$(dirname "$L")" && pwd)/$(basename "$L")\"" "$OUT/li.ptx" && ok ||
	bad "$L: .file 1 must name the input by its absolute path ($(grep '^\.file' "$OUT/li.ptx"))"
"$T" emit -g "$L" -o "$OUT/g.ptx" && "$T" emit --lineinfo "$L" -o "$OUT/gl.ptx" && cmp -s "$OUT/g.ptx" "$OUT/li.ptx" &&
	cmp -s "$OUT/gl.ptx" "$OUT/li.ptx" && ok || bad "-g, --lineinfo and -lineinfo must write the same module"
"$T" check -lineinfo "$L" 2>"$OUT/err"; [ $? = 2 ] && grep -q -- '-lineinfo is not an option of this command' "$OUT/err" && ok ||
	bad "check -lineinfo must be a usage error"
# every example and GPU test program: the module without -lineinfo plus .file/.loc lines, nothing else,
# and each statement's instructions under its line (check_lineinfo, in JOBS workers; both modules
# from analyse_batch's one analysis per file, whose check, module and records the later sections reuse)
analyse_batch $(files_of check_lineinfo)
run_each check_lineinfo $(files_of check_lineinfo)
if [ -n "$PTXAS" ]; then
	for f in "$L" examples/reg_32x8.tile examples/ws_pipeline.tile examples/wgmma_rs_chain.tile \
		examples/asm_placeholders.tile examples/unroll_stream.tile examples/tma_store.tile; do
		"$T" emit -lineinfo "$f" -o "$OUT/li.ptx" && target_of "$f" &&
			"$PTXAS" -lineinfo --gpu-name "$tg" "$OUT/li.ptx" -o "$OUT/li.cubin" 2>"$S/ptxas.log" &&
			"$PTXAS" --gpu-name "$tg" "$OUT/li.ptx" -o /dev/null 2>>"$S/ptxas.log" && ok ||
			{ bad "$f: ptxas (-lineinfo) refused the -lineinfo module"; head -3 "$S/ptxas.log"; }
	done
fi
# ptxemu --lineinfo runs the module with .file/.loc lines, and its reports name the same .tile lines
for f in tests/gpu/ldstmatrix_roundtrip.tile tests/gpu/roles_pipeline.tile tests/emu_fail/cp_async_no_wait.tile; do
	"$B/ptxemu" "$f" 2>&1 | sed 's/PTX line [0-9]*/PTX line N/' >"$OUT/e1"
	"$B/ptxemu" --lineinfo "$f" 2>&1 | sed 's/PTX line [0-9]*/PTX line N/' >"$OUT/e2"
	cmp -s "$OUT/e1" "$OUT/e2" && [ -s "$OUT/e1" ] && ok || bad "$f: ptxemu --lineinfo reports differ: $(diff "$OUT/e1" "$OUT/e2" | head -3)"
done

echo "== --diagnostics-format=json: gcc's JSON array (kind, message, locations with file/line/column, children for notes), for check, emit and explain"
json_check() { # FILE EXPECT(python expression over d, the array): the JSON on stderr parses and EXPECT holds
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(0 if eval(sys.argv[2].replace("\n", " ")) else 1)' "$1" "$2"
}
# an error with notes: one per candidate variant, at the copy
for cmd in check emit explain; do
	"$T" $cmd --diagnostics-format=json tests/bad/no_variant.tile >/dev/null 2>"$OUT/j"; rc=$?
	[ $rc = 1 ] && json_check "$OUT/j" 'len(d) == 1 and d[0]["kind"] == "error" and d[0]["message"].startswith("no variant lowers")
and d[0]["locations"][0]["caret"] == {"file": "tests/bad/no_variant.tile", "line": 7, "column": 1, "display-column": 1, "byte-column": 1}
and len(d[0]["children"]) == 6 and all(c["kind"] == "note" and c["locations"][0]["caret"]["line"] == 7 for c in d[0]["children"])' &&
		ok || bad "$cmd --diagnostics-format=json: an error with 6 notes (exit $rc): $(head -c 300 "$OUT/j")"
done
# a warning (exit 0), and the same warning under -Werror (an error, gcc's "option")
W=tests/warn/cp_async_never_waited.tile
"$T" check --diagnostics-format=json $W 2>"$OUT/j" && json_check "$OUT/j" 'len(d) == 1 and d[0]["kind"] == "warning"
and d[0]["locations"][0]["caret"]["line"] == 10 and d[0]["children"][0]["kind"] == "note" and "option" not in d[0]' &&
	ok || bad "--diagnostics-format=json: a warning: $(head -c 300 "$OUT/j")"
"$T" check -Werror --diagnostics-format=json $W 2>"$OUT/j"; [ $? = 1 ] &&
	json_check "$OUT/j" 'len(d) == 1 and d[0]["kind"] == "error" and d[0]["option"] == "-Werror"' && ok ||
	bad "--diagnostics-format=json -Werror: $(head -c 300 "$OUT/j")"
# several errors, and --max-errors' summary as a note without a location
printf 'target sm_90\nkernel k\nthreads 128\nparam A f32 [128]\nshared S f32 [128]\n' >"$OUT/me.tile"
for i in 1 2 3 4; do echo "cta copy S, X$i" >>"$OUT/me.tile"; done
"$T" check --diagnostics-format=json "$OUT/me.tile" 2>"$OUT/j"; [ $? = 1 ] &&
	json_check "$OUT/j" '[x["kind"] for x in d] == ["error"] * 4 and [x["locations"][0]["caret"]["line"] for x in d] == [6, 7, 8, 9]
and all("X%d" % (i + 1) in x["message"] for i, x in enumerate(d))' && ok || bad "--diagnostics-format=json: 4 errors: $(head -c 300 "$OUT/j")"
"$T" check --max-errors 1 --diagnostics-format=json "$OUT/me.tile" 2>"$OUT/j"
json_check "$OUT/j" 'len(d) == 2 and d[1]["kind"] == "note" and d[1]["locations"] == [] and "3 more errors" in d[1]["message"]' &&
	ok || bad "--diagnostics-format=json --max-errors 1: $(head -c 300 "$OUT/j")"
# no diagnostics: an empty array; text is the default; a bad value is a usage error
"$T" emit --diagnostics-format=json examples/reg_32x8.tile -o "$OUT/x.ptx" 2>"$OUT/j" && [ "$(cat "$OUT/j")" = "[]" ] && ok ||
	bad "--diagnostics-format=json: a clean program gives []"
"$T" check --diagnostics-format=text tests/bad/no_variant.tile 2>"$OUT/j"; grep -q '^tests/bad/no_variant.tile:7:1: error: ' "$OUT/j" &&
	ok || bad "--diagnostics-format=text must be the text format"
"$T" check --diagnostics-format=xml $W 2>"$OUT/j"; [ $? = 2 ] && grep -q "'xml' is not text or json" "$OUT/j" && ok ||
	bad "--diagnostics-format=xml must be a usage error"
# a message with quotes and a backslash stays valid JSON
printf 'target sm_90\nkernel k\nthreads 32\n"\\x\n' >"$OUT/q.tile"
"$T" check --diagnostics-format=json "$OUT/q.tile" 2>"$OUT/j"; json_check "$OUT/j" 'len(d) == 1 and d[0]["kind"] == "error"' && ok ||
	bad "--diagnostics-format=json: an error about a quote: $(head -c 300 "$OUT/j")"

echo "== -D NAME=VALUE pins a scalar param where it is declared: the same PTX as the facts NAME >= VALUE, NAME <= VALUE written there; unknown names and bad values are errors"
D=tests/gpu/ragged_colmajor.tile
"$T" emit -D M=256 -D K=128 -D LDM=256 "$D" -o "$OUT/d.ptx" 2>/dev/null
sed -e '/^param  *M u32/a assume M >= 256\nassume M <= 256' -e '/^param  *K u32/a assume K >= 128\nassume K <= 128' \
	-e '/^param  *LDM u32/a assume LDM >= 256\nassume LDM <= 256' "$D" >"$OUT/facts.tile"
"$T" emit "$OUT/facts.tile" -o "$OUT/facts.ptx" 2>/dev/null
"$T" emit "$D" -o "$OUT/plain.ptx" 2>/dev/null
# (the twin's lines are shifted by the facts: comments aside)
strip() { grep -v -E '^[[:space:]]*//' "$1"; }
cmp -s <(strip "$OUT/d.ptx") <(strip "$OUT/facts.ptx") && ok || bad "-D: not the PTX of the facts written out"
cmp -s <(strip "$OUT/d.ptx") <(strip "$OUT/plain.ptx") && bad "-D: the PTX did not change" || ok
# the proofs use it: no dimension of a 64 x 32 tile passes M = 256 or K = 128
"$T" explain -D M=256 -D K=128 -D LDM=256 "$D" >"$OUT/ex" 2>/dev/null
! grep -q '^  guarded' "$OUT/ex" && grep -q 'unguarded A dim 0 (M): .*never past M' "$OUT/ex" && ok ||
	bad "-D: explain must show the guards the value makes unneeded"
"$T" explain "$D" 2>/dev/null | grep -q '^  guarded' && ok || bad "without -D the ragged program is guarded"
# a launch with another value breaks the pinned fact (the ABI keeps the param)
"$T" check -D M=9 "$D" 2>"$OUT/err"; [ $? = 1 ] && grep -q "$D:15:1: error: the facts about 'M' leave it no value" "$OUT/err" &&
	grep -q "'M >= 9' (line 12), 'M <= 9' (line 12), 'M % 8 == 0' (line 15)" "$OUT/err" && ok ||
	bad "-D M=9 against 'assume M % 8 == 0': $(head -1 "$OUT/err")"
"$T" check -D Q=9 "$D" 2>"$OUT/err"; [ $? = 1 ] && grep -q "error: -D Q=9: no 'define Q' and no kernel has a scalar param 'Q'" "$OUT/err" && ok ||
	bad "-D of an unknown name: $(head -1 "$OUT/err")"
for v in =5 M 5=5; do
	"$T" check -D "$v" "$D" 2>"$OUT/err"; [ $? = 2 ] && grep -q "^tilepx: -D $v: " "$OUT/err" && ok || bad "-D $v must be a usage error: $(head -1 "$OUT/err")"
done
# a value a scalar cannot take: located at the param
for v in M=abc M=-1 M=2147483648; do
	"$T" check -D "$v" "$D" 2>"$OUT/err"; [ $? = 1 ] && grep -q "^$D:12:8: error: -D $v: a scalar param is pinned to a decimal in 0..2147483647" "$OUT/err" &&
		ok || bad "-D $v must be an error at M's param line: $(head -1 "$OUT/err")"
done
"$T" check -D M=8 -D M=16 "$D" 2>"$OUT/err"; [ $? = 2 ] && grep -q "'M' is given twice" "$OUT/err" && ok || bad "-D M twice must be a usage error"
"$T" check -DM=256 "$D" 2>/dev/null && ok || bad "-DNAME=VALUE (no space) must work as -D NAME=VALUE"
printf 'target sm_90\nkernel k\nthreads 32\nparam alpha f32\n' >"$OUT/fl.tile"
"$T" check -D alpha=1 "$OUT/fl.tile" 2>"$OUT/err"; [ $? = 1 ] && grep -q "4:7: error: -D alpha: 'alpha' is a float scalar param" "$OUT/err" &&
	ok || bad "-D of a float scalar: $(head -1 "$OUT/err")"

echo "== compile-time constants: 'define NAME [VALUE]' and -D NAME=VALUE, usable wherever a number is; one file is the softmax_rows family"
F=bench/softmax_rows_any.tile
"$T" emit "$F" -o "$OUT/c256.ptx" 2>"$OUT/err" && "$T" emit bench/softmax_rows.tile -o "$OUT/g256.ptx" 2>/dev/null &&
	cmp -s <(strip "$OUT/c256.ptx") <(strip "$OUT/g256.ptx") && ok || bad "$F (defaults): not bench/softmax_rows.tile's PTX $(head -1 "$OUT/err")"
"$T" emit -D T=64 -D KERNEL=softmax_rows_small "$F" -o "$OUT/c64.ptx" 2>"$OUT/err" &&
	"$T" emit tests/gpu/softmax_rows_small.tile -o "$OUT/g64.ptx" 2>/dev/null &&
	cmp -s <(strip "$OUT/c64.ptx") <(strip "$OUT/g64.ptx") && ok || bad "$F -D T=64: not tests/gpu/softmax_rows_small.tile's PTX $(head -1 "$OUT/err")"
# the two differ where T is: thread count in the layouts, chunk size in the loop
cmp -s "$OUT/c64.ptx" "$OUT/c256.ptx" && bad "-D T=64 did not change the PTX" || ok
grep -q 'softmax_rows_small' "$OUT/c64.ptx" && ! grep -q 'softmax_rows_small' "$OUT/c256.ptx" && ok || bad "-D KERNEL=...: the entry's name"
assemble "$OUT/c64.ptx" sm_90 && assemble "$OUT/c256.ptx" sm_90 && ok || bad "the -D modules must assemble: $(head -3 "$S/ptxas.log")"
# -D of a constant that is not a number where one is needed: located at the use, with where the value came from
"$T" check -D T=abc "$F" 2>"$OUT/err"; [ $? = 1 ] && grep -q "^$F:21:9: error: expected thread count (an integer), found 'abc'" "$OUT/err" &&
	grep -q "^$F:21:9: note: 'T' is the constant abc here (-D T=abc)" "$OUT/err" && ok || bad "-D T=abc: $(head -1 "$OUT/err")"
"$T" check -D T=1x "$F" 2>"$OUT/err"; [ $? = 1 ] && grep -q "^$F:16:15: error: constant 'T' is '1x' (-D T=1x), which is neither a number nor a name" "$OUT/err" &&
	ok || bad "-D T=1x: $(head -1 "$OUT/err")"
# the value is checked where it is used: a thread count the language refuses
"$T" check -D T=2048 "$F" 2>"$OUT/err"; [ $? = 1 ] && grep -q "^$F:21:" "$OUT/err" && ok || bad "-D T=2048 (threads past 1024): $(head -1 "$OUT/err")"
# a define without a value takes the -D's; -D of a constant the file does not define is an error
printf 'target sm_90\ndefine BM\ndefine G BM / 32\nkernel k\nthreads BM\ngrid G, 2\nparam A f32 [BM]\nshared S f32 [BM]\ncta copy S, A\n' >"$OUT/nd.tile"
"$T" emit -D BM=128 "$OUT/nd.tile" -o "$OUT/nd.ptx" 2>"$OUT/err" && grep -q '\.shared .*\[512\]' "$OUT/nd.ptx" && grep -q '\.reqntid 128' "$OUT/nd.ptx" &&
	ok || bad "define BM with -D BM=128: $(head -1 "$OUT/err")"
"$T" check -D BX=1 -D BM=64 "$OUT/nd.tile" 2>"$OUT/err"; [ $? = 1 ] && grep -q "error: -D BX=1: no 'define BX'" "$OUT/err" && ok || bad "-D BX (no define): $(head -1 "$OUT/err")"

echo "== --batch lines are split as a shell would: quoted paths and backslashes carry spaces (tilepx and ptxemu)"
mkdir -p "$OUT/a dir"
cp examples/reg_32x8.tile "$OUT/a dir/a b.tile"
printf '%s\n' "check \"$OUT/a dir/a b.tile\"" "check '$OUT/a dir/a b.tile'" "emit \"$OUT/a dir/a b.tile\" -o \"$OUT/a dir/o u.ptx\"" \
	"check ${OUT// /\\ }/a\\ dir/a\\ b.tile" 'check "no end' '' | "$T" --batch >"$OUT/bo" 2>"$OUT/be"; rc=$?
[ "$(tr '\n' ' ' <"$OUT/bo")" = "END 0 END 0 END 0 END 0 END 2 END 2 " ] && [ $rc = 1 ] && [ -s "$OUT/a dir/o u.ptx" ] &&
	grep -q "^tilepx: --batch: a quote is not closed on its line" "$OUT/be" && grep -q "^tilepx: --batch: an empty line" "$OUT/be" && ok ||
	bad "tilepx --batch with quoted paths: $(tr '\n' ' ' <"$OUT/bo") / $(head -2 "$OUT/be")"
# a file's consecutive lines share its analysis (src/api/api.c, Analysis): each line's output, its
# status and its file are what a run of its own gives, with warnings (-Werror, -w), an error of the
# analysis, an error of emit's own pass (a PTX version too old) and explain after emit
KB=$OUT/kept; mkdir -p "$KB/one" "$KB/batch"; : > "$KB/lines"
for f in tests/warn/cp_async_read_in_flight.tile tests/bad/no_variant.tile tests/bad/ptx_too_old.tile tests/bad/roles_wgmma_fence_hoisted.tile examples/ws_pipeline.tile; do
	for w in "" "-Werror " "-w "; do
		n=$(basename "$f" .tile)${w:+_${w:1:1}}
		printf '%s\n' "check $w$f" "emit $w$f -o DIR/$n.ptx" "emit -lineinfo $w$f -o DIR/$n.li.ptx" "explain --json $w$f" \
			"explain $w$f" "check $w$f" >> "$KB/lines"
	done
done
while read -r l; do "$T" ${l//DIR/$KB/one} 2>&1; echo "END $?"; done < "$KB/lines" > "$KB/one.out"
sed "s#DIR#$KB/batch#" "$KB/lines" | "$T" --batch > "$KB/batch.out" 2>&1
sed "s#$KB/one#$KB/batch#g" "$KB/one.out" | cmp -s - "$KB/batch.out" && diff -r -q "$KB/one" "$KB/batch" >/dev/null &&
	[ "$(ls "$KB/one" | wc -l)" -gt 6 ] && ok || bad "tilepx --batch with a kept analysis differs from runs of their own: $(diff "$KB/one.out" "$KB/batch.out" | head -3)"
printf '%s\n' "\"$OUT/a dir/a b.tile\"" "$OUT/a dir/a b.tile" | "$B/ptxemu" --batch >"$OUT/eo" 2>&1
[ "$(grep -c '^END 0$' "$OUT/eo")" = 1 ] && [ "$(grep -c '^END ' "$OUT/eo")" = 2 ] && grep -q '^PASS reg_32x8' "$OUT/eo" && ok ||
	bad "ptxemu --batch with a quoted path: $(grep END "$OUT/eo" | tr '\n' ' ')"

echo "== bench/plot.py: each plot from a tiny CSV is well-formed SVG (python's XML parser) with its data drawn"
if command -v python3 >/dev/null 2>&1; then
	printf '# tiny\npass,M,N,K,kernel,tilepx_us,cublas_us,cublaslt_us\nauto,1,2,3,k:P=1 Q=1,2.0,1.0,1.0\nfixed,1,2,3,k,4.0,1.0,1.0\n' >"$OUT/g.csv"
	printf '# tiny\nhd,seq,mask,cudnn,flash,tilepx\n64,1024,full,400,300,350\n64,4096,full,480,300,360\n' >"$OUT/a.csv"
	printf '# tiny\nwhat,us,gbps,hbm_gbps\ncopy,1,2900,3350\ntilepx x,1,2950,3350\n' >"$OUT/c.csv"
	printf '# tiny\nN,impl,gbps\n4096,copy,3900\n8192,copy,3900\n4096,tilepx softmax,3600\n8192,tilepx softmax,3800\n' >"$OUT/r.csv"
	for p in gemm:g attention:a copy:c rows:r; do
		python3 bench/plot.py "${p%%:*}" "$OUT/${p#*:}.csv" "$OUT/${p%%:*}.svg" 2>"$OUT/perr" &&
			python3 -c '
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
ns = "{http://www.w3.org/2000/svg}"
assert root.tag == ns + "svg", root.tag
shapes = [e for e in root.iter() if e.tag in (ns + "rect", ns + "polyline")]
assert len(shapes) >= 3, len(shapes)  # the background and the data
texts = " ".join(e.text or "" for e in root.iter(ns + "text"))
assert "tiny" in texts, texts  # the CSV comment: where the numbers come from
' "$OUT/${p%%:*}.svg" 2>>"$OUT/perr" && ok || bad "bench/plot.py ${p%%:*}: $(tail -2 "$OUT/perr")"
	done
	# the committed plots are the committed CSVs' (bench/plot.py all writes docs/plots/)
	for p in gemm attention copy rows; do
		src=$(python3 -c "import sys; sys.path.insert(0, 'bench'); import plot; print(plot.SOURCES['$p'])")
		python3 bench/plot.py "$p" "bench/results/csv/$src" "$OUT/$p.svg" && cmp -s "$OUT/$p.svg" "docs/plots/$p.svg" && ok ||
			bad "docs/plots/$p.svg is not bench/plot.py's drawing of bench/results/csv/$src (run python3 bench/plot.py all)"
	done
	python3 bench/plot.py nosuch 2>/dev/null; [ $? = 2 ] && ok || bad "bench/plot.py with an unknown plot must exit 2"
	# --csv of the benchmarks: tma.sh's lines and sweep.sh's results through the converters they call
	printf '%s\n' 'cuMemcpyDtoD, 256 MiB                179.7 us     2988 GB/s (read + written)' \
		'BENCH tma_pipeline_4stage: 180.00 us per launch, 2982.0 GB/s (268435456 bytes moved by copies per launch)' \
		'== noise' >"$OUT/tma.log"
	python3 bench/plot.py copy-csv "$OUT/tma.log" "$OUT/tc.csv" 3350 && [ "$(grep -v '^#' "$OUT/tc.csv" | tr -d '\r' | tr '\n' '|')" = \
		"what,us,gbps,hbm_gbps|\"cuMemcpyDtoD, 256 MiB\",179.7,2988,3350|tilepx tma_pipeline_4stage,180.00,2982.0,3350|" ] && ok ||
		bad "plot.py copy-csv (tma.sh --csv): $(tr '\n' '|' <"$OUT/tc.csv")"
	# sweep.sh --csv on a stand-in bench (SWEEP_BENCH: the script's dry run) that prints gemm_bench's timing lines
	printf '#!/bin/sh\necho "tilepx x 10.0 9.0 11.0 1"\necho "cublasGemmEx x 9.0 8.0 10.0 1"\necho "cublasLt x 8.5 8.0 9.0 1"\n' >"$OUT/fakebench"
	chmod +x "$OUT/fakebench"
	(cd "$OUT" && SWEEP_BENCH="$OUT/fakebench" SWEEP_SHAPES="64 64 64;128 256 64" SWEEP_FIXED=0 OUT="$OUT" \
		bash "$OLDPWD/bench/gpu_runs/sweep.sh" --csv sw.csv >/dev/null 2>&1)
	[ "$(grep -c '^auto,' "$OUT/sw.csv" 2>/dev/null)" = 2 ] && grep -q '^auto,128,256,64,gemm_sm90_walk_512x128:P=4 Q=33,10.0,9.0,8.5$' "$OUT/sw.csv" &&
		python3 bench/plot.py gemm "$OUT/sw.csv" "$OUT/sw.svg" && ok || bad "sweep.sh --csv: $(tr '\n' '|' <"$OUT/sw.csv" 2>&1)"
fi
