# Sourced by tests/run.sh: the runners' command lines (ptxemu, tilepx-run):
# malformed --set values are usage errors, sizes no host can hold are clear
# errors, and names of any length work.
echo "== runners: --set values are checked (exit 2), sizes past the host are errors, names of any length"
R=$OUT/runners; mkdir -p "$R"
# a value is never skipped (the program's '# set:' value used instead) or saturated
for s in "M" "M=9223372036854775808" "M=-1" "M=2147483648" "M=abc" "M=" "M= 5" "M=0x10" "M=+5" "=5" "1M=5" "M=5 "; do
	"$B/ptxemu" --set "$s" examples/ragged_copy_2d.tile >"$R/out" 2>"$R/err"; rc=$?
	[ $rc = 2 ] && grep -q -- "^ptxemu: --set: '$s'" "$R/err" && [ ! -s "$R/out" ] && ok ||
		bad "ptxemu --set '$s': want exit 2 and a usage error naming it, got exit $rc: $(head -c 200 "$R/err")"
done
"$B/ptxemu" --set 2>"$R/err" >/dev/null; rc=$?
[ $rc = 2 ] && grep -q -- '--set needs a value' "$R/err" && ok || bad "ptxemu --set with no value: exit $rc"
"$B/ptxemu" --max-threads 12x examples/reg_32x8.tile >/dev/null 2>&1; rc=$?
[ $rc = 2 ] && ok || bad "ptxemu --max-threads 12x: exit $rc, want 2"
"$B/ptxemu" --set M=1000 --set K=72 examples/ragged_copy_2d.tile | grep -q '^PASS' && ok ||
	bad "ptxemu with well-formed --set values must run"
# a name no kernel has (a typo of M leaves the program's value): a warning
"$B/ptxemu" --set m=64 examples/ragged_copy_2d.tile >"$R/out" 2>"$R/err"; rc=$?
[ $rc = 0 ] && grep -q "^ptxemu: warning: --set m=64: examples/ragged_copy_2d.tile has no scalar param 'm'" "$R/err" && ok ||
	bad "ptxemu --set m=64 (no such scalar): exit $rc, $(head -c 200 "$R/err")"
# a name given twice: the later value was silently ignored
"$B/ptxemu" --set M=1000 --set K=72 --set M=64 examples/ragged_copy_2d.tile >"$R/out" 2>"$R/err"; rc=$?
[ $rc = 2 ] && grep -q "^ptxemu: --set: 'M' is given twice ('M=1000', 'M=64')" "$R/err" && ok ||
	bad "ptxemu --set M twice: exit $rc, want 2: $(head -c 200 "$R/err")"
# the program's own '# set:' line is checked the same way (an input error: exit 1)
sed 's/^# set: .*/# set: M=1000 K/' examples/ragged_copy_2d.tile > "$R/badset.tile"
"$B/ptxemu" "$R/badset.tile" >"$R/out" 2>&1; rc=$?
[ $rc = 1 ] && grep -q "^FAIL ragged_copy_2d: the program's '# set:' line: 'K' is not NAME=VALUE" "$R/out" && ok ||
	bad "a malformed '# set:' token: exit $rc, $(head -1 "$R/out")"
if [ -x "$B/tilepx-run" ]; then # its arguments are read before the driver starts: the stub libcuda suffices
	mkdir -p "$R/lib"; ln -sf "${CUDA:-/usr/local/cuda}/lib64/stubs/libcuda.so" "$R/lib/libcuda.so.1"
	for s in "M" "M=9223372036854775808" "M=abc"; do
		LD_LIBRARY_PATH="$R/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$B/tilepx-run" --set "$s" examples/ragged_copy_2d.tile \
			>/dev/null 2>"$R/err"; rc=$?
		[ $rc = 2 ] && grep -q -- "^tilepx-run: --set: '$s'" "$R/err" && ok ||
			bad "tilepx-run --set '$s': want exit 2, got $rc: $(head -c 200 "$R/err")"
	done
	LD_LIBRARY_PATH="$R/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$B/tilepx-run" --bench 10x examples/reg_32x8.tile \
		>/dev/null 2>"$R/err"; rc=$?
	[ $rc = 2 ] && grep -q -- "^tilepx-run: --bench: '10x'" "$R/err" && ok || bad "tilepx-run --bench 10x: exit $rc, want 2"
fi
# values that break no fact but give a param more bytes than the host has or
# than 64 bits hold: a FAIL line and exit 1, never a crash (ASan: malloc returns NULL)
printf 'target sm_90\nkernel big\nthreads 32\nparam M u32\nparam K u32\nparam A u8 [M, K]\nparam B u8 [M, K]\nshared S u8 [32]\ncta copy S, A[0, 0:32]\ncta copy B[0, 0:32], S\n' > "$R/big.tile"
sed 's/u8/f64/g' "$R/big.tile" > "$R/big64.tile"
for c in "big.tile M=1073764994 K=2147437309 cannot allocate" "big.tile M=2147483647 K=2147483647 cannot allocate" \
         "big64.tile M=2147483647 K=2147483647 more than 2^63 - 1 bytes"; do
	set -- $c; f=$1 m=$2 k=$3; shift 3
	ASAN_OPTIONS=allocator_may_return_null=1 "$B/ptxemu" --set "$m" --set "$k" "$R/$f" >"$R/out" 2>&1; rc=$?
	[ $rc = 1 ] && grep -q "^FAIL big: .*$*" "$R/out" && ok || bad "ptxemu $f $m $k: exit $rc, $(head -c 300 "$R/out")"
done
# names far longer than any fixed buffer (ptxas takes them): kernel, scalar, params, shared, tensor map
long=$(head -c 1000 /dev/zero | tr '\0' a)
{ printf 'target sm_90\n# set: N%s=40\n' "$long"
  printf 'kernel k%s\nthreads 64\nparam N%s u32\nassume N%s <= 64\n' "$long" "$long" "$long"
  printf 'param A%s f32 [N%s]\nparam B%s f32 [64]\nshared S%s f32 [64]\n' "$long" "$long" "$long" "$long"
  printf 'cta copy S%s, B%s\nsync\nwarp copy A%s[0:32], S%s[32 - 32*warpid : 64 - 32*warpid]\n' "$long" "$long" "$long" "$long"
  printf 'kernel t%s\nthreads 32\nparam T%s u16 [64, 64] tma\nparam U%s u16 [64, 64]\n' "$long" "$long" "$long"
  printf 'shared Q%s u16 [64, 64]\nmbarrier bar%s\nmbarrier.init bar%s\nmbarrier.expect_tx bar%s\n' "$long" "$long" "$long" "$long"
  printf 'cta copy_async Q%s, T%s mbarrier bar%s\nmbarrier.wait bar%s\ncta copy U%s, Q%s\n' "$long" "$long" "$long" "$long" "$long" "$long"
} > "$R/long_names.tile"
"$T" emit "$R/long_names.tile" -o "$R/long_names.ptx" 2>"$R/err" && assemble "$R/long_names.ptx" sm_90 && ok ||
	bad "long names: emit or ptxas failed: $(head -c 300 "$R/err" "$OUT/ptxas.log")"
"$B/ptxemu" "$R/long_names.tile" >"$R/out" 2>&1; rc=$?
[ $rc = 0 ] && [ "$(grep -c '^PASS' "$R/out")" = 2 ] && ok || bad "long names in ptxemu: exit $rc, $(head -c 300 "$R/out")"
