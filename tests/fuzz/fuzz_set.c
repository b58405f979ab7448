/* libFuzzer target: scalar values "NAME=V" (the runners' --set, the C API's
 * tilepx_launches_set) bound to ragged programs with no upper facts, so that
 * any value the parser takes reaches kernel_bind's sizes, ld strides and
 * tensor maps. Input: byte 0 picks the program, the rest is up to 8 values,
 * one a line. A value outside 0..2^31-1 must never bind. */
#include "../../include/tilepx/tilepx.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const char *const programs[] = {
	"target sm_90\nkernel r\nthreads 32\nparam M u32\nparam K u32\ngrid cdiv(M, 32)\n"
	"param A f64 [M, K]\nparam B f64 [M, K]\nshared S f64 [32]\n"
	"cta copy S, A[ctaid*32 : ctaid*32 + 32, 0]\ncta copy B[ctaid*32 : ctaid*32 + 32, 0], S\n",
	"target sm_90\nkernel t\nthreads 128\nparam M u32\nparam K u32\nparam LDA u32\nassume K % 8 == 0\n"
	"assume LDA % 8 == 0\ngrid cdiv(M, 64)\nparam A bf16 [M, K] ld LDA tma\nparam B bf16 [M, K]\n"
	"shared S bf16 [64, 64]\nmbarrier bar\nmbarrier.init bar\nmbarrier.expect_tx bar\n"
	"cta copy_async S, A[ctaid*64 : ctaid*64 + 64, 0:64] mbarrier bar\nmbarrier.wait bar\n"
	"cta copy B[ctaid*64 : ctaid*64 + 64, 0:64], S\n",
	"target sm_80\nkernel c\nthreads 64\nparam M u32\nparam K u64\nparam LDM u32\n"
	"param A u8 [M, K] colmajor ld LDM\nparam B u8 [M, K] colmajor\nshared S u8 [64]\n"
	"cta copy S, A[0:64, 0]\ncta copy B[0:64, 0], S\n",
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1 || size > 4096)
		return 0;
	const char *prog = programs[data[0] % (sizeof programs / sizeof *programs)];
	char *text = malloc(size); /* the values, NUL-separated */
	memcpy(text, data + 1, size - 1);
	text[size - 1] = 0;
	const char *sets[8];
	int n = 0;
	for (char *s = text, *e; s && n < 8; s = e ? e + 1 : NULL) {
		e = memchr(s, '\n', (size_t)(text + size - 1 - s));
		if (e)
			*e = 0;
		sets[n++] = s;
	}
	tilepx_launch l[1];
	tilepx_result r;
	int got = tilepx_launches_set("fuzz.tile", prog, strlen(prog), NULL, sets, n, l, 1, &r);
	for (int i = 0; got == 1 && i < l[0].nscalars; i++)
		if (l[0].scalars[i].value < 0 || l[0].scalars[i].value > 0x7fffffff)
			__builtin_trap(); /* a value no scalar can have was bound */
	tilepx_result_free(&r);
	free(text);
	return 0;
}
