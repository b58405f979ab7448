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
# and each statement's instructions under its line (check_lineinfo, in JOBS workers; the plain
# module is emit_once's, which the later sections reuse)
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
"$T" check -D Q=9 "$D" 2>"$OUT/err"; [ $? = 1 ] && grep -q "error: -D Q=9: no kernel has a scalar param 'Q'" "$OUT/err" && ok ||
	bad "-D of an unknown name: $(head -1 "$OUT/err")"
for v in M=abc M=-1 M=2147483648 =5 M; do
	"$T" check -D "$v" "$D" 2>"$OUT/err"; [ $? = 2 ] && grep -q "^tilepx: -D $v: " "$OUT/err" && ok || bad "-D $v must be a usage error: $(head -1 "$OUT/err")"
done
"$T" check -D M=8 -D M=16 "$D" 2>"$OUT/err"; [ $? = 2 ] && grep -q "'M' is given twice" "$OUT/err" && ok || bad "-D M twice must be a usage error"
"$T" check -DM=256 "$D" 2>/dev/null && ok || bad "-DNAME=VALUE (no space) must work as -D NAME=VALUE"
printf 'target sm_90\nkernel k\nthreads 32\nparam alpha f32\n' >"$OUT/fl.tile"
"$T" check -D alpha=1 "$OUT/fl.tile" 2>"$OUT/err"; [ $? = 1 ] && grep -q "4:7: error: -D alpha: 'alpha' is a float scalar param" "$OUT/err" &&
	ok || bad "-D of a float scalar: $(head -1 "$OUT/err")"
