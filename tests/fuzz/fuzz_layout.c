/* libFuzzer target: the layout parser and layout checks, fed through a fixed
 * program so that every input is a layout of a shared and a local buffer. */
#include "../../include/tilepx/tilepx.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char head[] = "target sm_100a\nkernel k\nthreads 128\nshared S f16 [64, 64] layout ";
	static const char mid[] = "\nlocal R f16 [64, 64] layout ";
	static const char tail[] = "\nwg copy R, S\nwg copy S, R\n";
	if (size > 4096)
		return 0;
	/* the input is split at its first newline: shared layout, then local layout */
	const uint8_t *nl = memchr(data, '\n', size);
	size_t a = nl ? (size_t)(nl - data) : size, b = nl ? size - a - 1 : 0;
	size_t n = sizeof head + a + sizeof mid + b + sizeof tail;
	char *src = malloc(n);
	size_t k = 0;
	memcpy(src + k, head, sizeof head - 1), k += sizeof head - 1;
	memcpy(src + k, data, a), k += a;
	memcpy(src + k, mid, sizeof mid - 1), k += sizeof mid - 1;
	if (nl)
		memcpy(src + k, nl + 1, b), k += b;
	memcpy(src + k, tail, sizeof tail - 1), k += sizeof tail - 1;
	tilepx_result r;
	tilepx_compile("fuzz.tile", src, k, NULL, TILEPX_EMIT, &r);
	tilepx_result_free(&r);
	free(src);
	return 0;
}
