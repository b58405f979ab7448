#!/usr/bin/env bash
# bash tests/asmbatch_check.sh: every module make test emits (examples, tests/gpu,
# tests/explain, bench/codegen) assembled in assemble_batch's batches, then each
# batched module's log against its own ptxas -v run (tests/lib.sh's asm_batch_same).
# Prints the modules that differ; exit 1 if one does. (make test compares two.)
set -u
cd "$(dirname "$0")/.."
. tests/lib.sh
prepare_modules bench/codegen/*.tile examples/*.tile tests/gpu/*.tile tests/explain/*.tile
n=0 d=0
for p in "$OUT"/asm_plan*/*:*; do
	[ "$(wc -l < "$p")" -gt 1 ] || continue
	tg=${p##*/}; tg=${tg%:*}
	while read -r m _; do
		[ -f "$m.$tg.log" ] || { echo "$m ($tg): no batch log (its batch failed)"; d=$((d + 1)); continue; }
		n=$((n + 1))
		asm_batch_same "$m" "$tg" || d=$((d + 1))
	done < "$p"
done
echo "$n batched modules compared, $d differ"
[ $d = 0 ]
