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
[ "$(grep -c 'error:' "$OUT/err")" = 1 ] && [ "$(grep -c '^tests/bad/no_variant.tile:7:1: note: ' "$OUT/err")" = 4 ] && ok ||
	bad "a no-variant error must be one error line and one located note per candidate"
"$T" explain --json examples/reg_32x8.tile | head -1 |
	grep -q '"file": "examples/reg_32x8.tile", "col": 1, "dst_region": "A_smem", "src_region": "A"' && ok ||
	bad "explain --json records must carry file, column and both regions"
