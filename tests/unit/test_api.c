/* The public API validates its arguments and never crashes on them. */
#include "unit.h"
#include "../../include/tilepx/tilepx.h"

static const char prog[] = "target sm_90\nkernel k\nthreads 32\nparam A f32 [32]\nshared S f32 [32]\n"
                           "cta copy S, A\n";

int main(void)
{
	tilepx_result r;
	CHECK(tilepx_compile("x.tile", NULL, 5, NULL, TILEPX_EMIT, &r) == 0, "NULL src with len > 0");
	CHECK(!r.ok && r.diagnostics && strstr(r.diagnostics, "src is NULL"), "says why: %s",
	      r.diagnostics ? r.diagnostics : "(none)");
	CHECK(r.output == NULL, "no output");
	tilepx_result_free(&r);

	CHECK(tilepx_compile("x.tile", prog, sizeof prog - 1, NULL, TILEPX_EMIT, NULL) == 0, "NULL out");

	CHECK(tilepx_compile("x.tile", prog, sizeof prog - 1, NULL, (tilepx_mode)42, &r) == 0, "bad mode");
	CHECK(r.diagnostics && strstr(r.diagnostics, "mode"), "says why");
	tilepx_result_free(&r);

	CHECK(tilepx_compile(NULL, prog, sizeof prog - 1, NULL, TILEPX_EMIT, &r) == 1, "NULL path is allowed");
	CHECK(r.ok && r.output && strstr(r.output, ".entry k"), "emits");
	tilepx_result_free(&r);

	CHECK(tilepx_compile("e.tile", NULL, 0, NULL, TILEPX_CHECK, &r) == 0, "empty input is an error, not a crash");
	CHECK(r.diagnostics && strstr(r.diagnostics, "error"), "with a diagnostic");
	tilepx_result_free(&r);

	tilepx_result_free(NULL);
	tilepx_result_free(&r); /* twice is fine: the first call zeroed it */
	CHECK(1, "free(NULL) and double free are harmless");
	UNIT_END();
}
