# Sourced by tests/run.sh: the shared library (build/libtilepx.so) and the Python package over it.
echo "== shared library: soname, only tilepx_* exported, a C program links against it and compiles a .tile"
so=$B/libtilepx.so
san=$(case "$B" in *san*) echo -fsanitize=address,undefined;; esac)
if [ -f "$so" ]; then
	readelf -d "$so" | grep -q 'Library soname: \[libtilepx\.so\.0\]' && ok || bad "$so has no soname libtilepx.so.0"
	syms=$(nm -D --defined-only "$so" | awk 'NF == 3 {print $3}')
	extra=$(echo "$syms" | grep -v '^tilepx_' || true)
	[ -z "$extra" ] && ok || bad "libtilepx.so exports non-tilepx_ symbols: $(echo $extra | head -c 200)"
	echo "$syms" | grep -q -x tilepx_compile && ok || bad "libtilepx.so does not export tilepx_compile"
	nm -D --undefined-only "$so" | grep -q ' cu[A-Z]' && bad "libtilepx.so links CUDA driver symbols (it must dlopen libcuda.so.1)" || ok
	cat > "$OUT/so.c" <<'SO'
#include "tilepx/tilepx.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int main(int argc, char **argv)
{
	FILE *f = fopen(argv[1], "rb");
	static char src[1 << 16];
	size_t n = f ? fread(src, 1, sizeof src, f) : 0;
	if (f)
		fclose(f);
	tilepx_result r;
	int ok = argc == 2 && n > 0 && tilepx_compile(argv[1], src, n, NULL, TILEPX_EMIT, &r);
	ok = ok && r.output && strstr(r.output, ".entry gemm_sm90") && !strcmp(tilepx_version(), TILEPX_VERSION_STRING);
	if (ok)
		fputs(r.output, stdout);
	tilepx_result_free(&r);
	return !ok;
}
SO
	${CC:-cc} -std=c11 -Wall -Werror -Iinclude "$OUT/so.c" -L"$B" -ltilepx -Wl,-rpath,"$PWD/$B" $san -o "$OUT/so" 2>"$OUT/err" &&
		"$OUT/so" examples/gemm_sm90.tile > "$OUT/so.ptx" && "$T" emit examples/gemm_sm90.tile -o "$OUT/cli.ptx" &&
		cmp -s "$OUT/so.ptx" "$OUT/cli.ptx" && ok || bad "a C program linked against libtilepx.so: $(head -2 "$OUT/err")"
	readelf -d "$OUT/so" 2>/dev/null | grep -q 'NEEDED.*\[libtilepx\.so\.0\]' && ok || bad "the program does not need libtilepx.so.0"
else
	bad "$so was not built"
fi
