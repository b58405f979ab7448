# sourced by tests/run.sh: explain's shared-memory wavefronts, computed from
# the layouts and each variant's access pattern (src/proof/hazard.c), against
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
