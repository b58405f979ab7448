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

echo "== launch layer: its local CUDA driver declarations (src/launch_cuda.h) match cuda.h"
cuda_inc=${CUDA:-/usr/local/cuda}/include
if [ -f "$cuda_inc/cuda.h" ]; then
	for side in local cuda; do
		cat > "$OUT/decl_$side.c" <<DECL
#include <stddef.h>
#include <stdio.h>
#if SIDE_CUDA
#include <cuda.h>
typedef struct CUlaunchAttribute_st A;
typedef struct CUlaunchConfig_st C;
#else
#include "launch_cuda.h"
typedef CUlaunchAttribute A;
typedef CUlaunchConfig C;
#endif
int main(void)
{
	printf("attr %zu id %zu value %zu cluster %zu\n", sizeof(A), offsetof(A, id), offsetof(A, value),
	       sizeof(((A *)0)->value.clusterDim));
	printf("config %zu stream %zu attrs %zu num %zu\n", sizeof(C), offsetof(C, hStream), offsetof(C, attrs),
	       offsetof(C, numAttrs));
	printf("enums %d %d %d %d %d %d %d\n", (int)CU_JIT_INFO_LOG_BUFFER, (int)CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
	       (int)CU_JIT_ERROR_LOG_BUFFER, (int)CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
	       (int)CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, (int)CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION,
	       (int)CUDA_SUCCESS);
	return 0;
}
DECL
	done
	${CC:-cc} -std=c11 -DSIDE_CUDA=1 -I"$cuda_inc" "$OUT/decl_cuda.c" -o "$OUT/decl_cuda" 2>"$OUT/err" &&
		${CC:-cc} -std=c11 -DSIDE_CUDA=0 -Isrc "$OUT/decl_local.c" -o "$OUT/decl_local" 2>>"$OUT/err" &&
		"$OUT/decl_cuda" > "$OUT/decl_cuda.txt" && "$OUT/decl_local" > "$OUT/decl_local.txt" &&
		cmp -s "$OUT/decl_cuda.txt" "$OUT/decl_local.txt" && ok ||
		bad "src/launch_cuda.h disagrees with cuda.h: $(head -2 "$OUT/err") $(diff "$OUT/decl_cuda.txt" "$OUT/decl_local.txt" | head -4)"
	# the entry points it resolves by name exist under those names in the driver's stub
	stub=${CUDA:-/usr/local/cuda}/lib64/stubs/libcuda.so
	if [ -f "$stub" ]; then
		missing=$(grep -o 'SYM([A-Za-z]*, "cu[A-Za-z0-9_]*")' src/api/launch.c | sed 's/.*"\(.*\)")/\1/' |
			while read -r s; do nm -D --defined-only "$stub" | grep -q " $s\$" || echo "$s"; done)
		[ -z "$missing" ] && ok || bad "the driver has no entry point named: $missing"
	fi
else
	echo "  (no CUDA headers: not compared)"
fi

echo "== python package (python/tilepx over libtilepx.so): compile, located errors, arguments checked against the launch record (tests/python)"
if command -v python3 >/dev/null 2>&1; then
	pre=
	case "$B" in *san*) # the library carries ASan: its runtime must come first in a python process
		pre="$(${CC:-cc} -print-file-name=libasan.so) $(${CC:-cc} -print-file-name=libubsan.so)";; esac
	line=$(LD_PRELOAD="$pre" ASAN_OPTIONS=detect_leaks=0 TILEPX_BUILD="$B" python3 tests/python/test_tilepx.py \
		2>"$OUT/py.log" | tail -1)
	p= f=
	[[ $line =~ ^([0-9]*)\ passed,\ ([0-9]*)\ failed$ ]] && p=${BASH_REMATCH[1]} f=${BASH_REMATCH[2]}
	if [ -z "$p" ]; then bad "tests/python/test_tilepx.py crashed or printed no summary"; tail -20 "$OUT/py.log"
	else
		pass=$((pass + p)); fail=$((fail + f))
		[ "$f" = 0 ] || { echo "FAIL: tests/python/test_tilepx.py"; cat "$OUT/py.log"; }
		echo "  test_tilepx.py: $line"
	fi
else
	echo "  (no python3: the package is not tested)"
fi
