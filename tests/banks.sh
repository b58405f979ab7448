# sourced by tests/run.sh: explain's shared-memory wavefronts, computed from
# the layouts and each variant's access pattern (src/proof/banks.c), against
# ptxemu --banks, which counts them on the emitted PTX as it runs (banks_cmp
# and check_banks in tests/lib.sh).
echo "== bank conflicts: explain's wavefronts equal ptxemu --banks' on every program that touches shared memory, and on random ones"
cmp_files=(); for f in $(files_of check_banks); do file_has "$f" '^shared ' && ! file_has "$f" '^ *repeat (cdiv|[A-Za-z])' && cmp_files+=("$f"); done
explain_batch "${cmp_files[@]}"
emulate_batch "${cmp_files[@]}"
run_each check_banks $(files_of check_banks)
echo "  ${tags[compared]:-0} programs compared"
RB=$OUT/banks_rand; mkdir -p "$RB"
"$B/randtile" 20261123 200 "$RB" > /dev/null || bad "randtile failed"
explain_batch "$RB"/*.tile
shared=(); for f in "$RB"/*.tile; do file_has "$f" '^shared ' && shared+=("$f"); done
emulate_batch "${shared[@]}"
run_each check_banks_random "$RB"/*.tile
echo "  ${tags[compared]:-0} random programs compared"
echo "== bank conflicts: ptxemu --banks gives the H100's wavefronts ('# banks:' lines: broadcasts, merged accesses)"
run_each check_banks_pin $(files_of check_banks_pin)
echo "== bank conflicts: the shared loads and stores explain counts are the ones ptxas 13 runs ('# sass: KERNEL N' lines: N LDS/STS in the cubin, build/sasscount --shared, equal to explain's instructions; kernels of straight code)"
SS=$OUT/sass_shared; mkdir -p "$SS"
for f in $(grep -l '^# sass: ' tests/gpu/*.tile tests/explain/*.tile); do
	n=$(basename "$f" .tile)
	"$T" emit "$f" -o "$SS/$n.ptx" 2>/dev/null && "$PTXAS" --gpu-name sm_90 "$SS/$n.ptx" -o "$SS/$n.cubin" &&
		"$B/sasscount" --shared "$SS/$n.cubin" > "$SS/$n.sass" && "$T" explain --json "$f" > "$SS/$n.json" ||
		{ bad "$f: emit, ptxas or sasscount failed"; continue; }
	while read -r _ _ kernel want; do
		got=$(awk -v k="$kernel" '$1 == k { print $NF }' "$SS/$n.sass")
		counted=$(grep "\"kernel\": \"$kernel\"," "$SS/$n.json" | grep -o '"instructions": [0-9]*' | awk '{ s += $2 } END { print s + 0 }')
		if [ "$got" = "$want" ] && [ "$counted" = "$want" ]; then ok
		else bad "$f: $kernel: ptxas runs ${got:-no} shared loads/stores, explain counts $counted, the file says $want"; fi
	done < <(grep '^# sass: ' "$f")
done
