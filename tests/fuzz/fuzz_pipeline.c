/* libFuzzer target: the whole pipeline (parse, check, dispatch, emit, explain). */
#include "../../include/tilepx/tilepx.h"

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const tilepx_mode modes[] = {TILEPX_EMIT, TILEPX_EXPLAIN_JSON, TILEPX_CHECK};
	tilepx_result r;
	tilepx_compile("fuzz.tile", (const char *)data, size, NULL, modes[size % 3], &r);
	tilepx_result_free(&r);
	return 0;
}
