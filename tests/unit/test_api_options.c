/* tilepx_compile_ex: the command line's options through the C API (-D,
 * -lineinfo, -Werror, --max-errors, JSON) and the structured diagnostics. */
#include "unit.h"
#include "../../include/tilepx/tilepx.h"

static const char prog[] = "target sm_90\ndefine T 32\ndefine N T * 4\nkernel k\nthreads T\n"
                           "param A f32 [N]\nshared S f32 [N]\ncta copy S, A\n";

static void defines(void)
{
	tilepx_result r;
	const char *d64[] = {"T=64"};
	tilepx_options o = {.defines = d64, .ndefines = 1};
	CHECK(tilepx_compile_ex("c.tile", prog, sizeof prog - 1, TILEPX_EMIT, &o, &r, NULL) == 1, "-D T=64: %s",
	      r.diagnostics ? r.diagnostics : "");
	CHECK(r.output && strstr(r.output, ".reqntid 64") && strstr(r.output, "S$sm[1024]"), "T=64: 64 threads, N=256");
	tilepx_result_free(&r);
	CHECK(tilepx_compile_ex("c.tile", prog, sizeof prog - 1, TILEPX_EMIT, NULL, &r, NULL) == 1, "defaults");
	CHECK(r.output && strstr(r.output, ".reqntid 32") && strstr(r.output, "S$sm[512]"), "defaults: 32 threads");
	tilepx_result_free(&r);
	/* the launch record sees the constants too */
	tilepx_launch l;
	CHECK(tilepx_launch_of_ex("c.tile", prog, sizeof prog - 1, NULL, NULL, 0, &o, &l, &r) == 1, "launch_of_ex");
	CHECK(l.block == 64 && l.params[0].dims[0] == 256, "record: block %d, A's %lld elements", l.block,
	      (long long)l.params[0].dims[0]);
	tilepx_result_free(&r);
	const char *bad[] = {"T=64", "T=32"};
	o.defines = bad;
	o.ndefines = 2;
	CHECK(tilepx_compile_ex("c.tile", prog, sizeof prog - 1, TILEPX_EMIT, &o, &r, NULL) == 0 && r.diagnostics &&
	          strstr(r.diagnostics, "given twice"),
	      "a name twice is refused: %s", r.diagnostics ? r.diagnostics : "");
	tilepx_result_free(&r);
}

static void structured(void)
{
	tilepx_result r;
	tilepx_diagnostics d;
	const char *dx[] = {"T=abc"};
	tilepx_options o = {.defines = dx, .ndefines = 1};
	CHECK(tilepx_compile_ex("c.tile", prog, sizeof prog - 1, TILEPX_CHECK, &o, &r, &d) == 0, "T=abc fails");
	CHECK(d.n >= 2 && d.items[0].severity == TILEPX_ERROR && d.items[0].line == 3 && d.items[0].column == 10 &&
	          !strcmp(d.items[0].file, "c.tile") && strstr(d.items[0].message, "unknown variable 'abc'") &&
	          d.items[0].parent == -1,
	      "the error, located at the use: %d items, %s", d.n, d.n ? d.items[0].message : "");
	CHECK(d.n == 4 && d.items[2].severity == TILEPX_ERROR && d.items[2].line == 5, "then threads T (and N's uses say nothing more)");
	CHECK(d.n >= 2 && d.items[1].severity == TILEPX_NOTE && d.items[1].parent == 0 &&
	          strstr(d.items[1].message, "-D T=abc"),
	      "its note says where the value came from");
	tilepx_diagnostics_free(&d);
	CHECK(d.items == NULL && d.n == 0, "freed and zeroed");
	tilepx_result_free(&r);
	o.diagnostics_json = 1;
	tilepx_compile_ex("c.tile", prog, sizeof prog - 1, TILEPX_CHECK, &o, &r, NULL);
	CHECK(r.diagnostics && r.diagnostics[0] == '[' && strstr(r.diagnostics, "\"kind\": \"error\""), "JSON text");
	tilepx_result_free(&r);
	CHECK(tilepx_compile_ex("c.tile", prog, sizeof prog - 1, TILEPX_CHECK, NULL, &r, &d) == 1 && d.n == 0,
	      "no diagnostics: an empty list");
	tilepx_diagnostics_free(&d);
	tilepx_result_free(&r);
}

static void lineinfo(void)
{
	tilepx_result r;
	tilepx_options o = {.lineinfo = 1, .lineinfo_file = "/src/c.tile", .target = "sm_90a"};
	CHECK(tilepx_compile_ex("c.tile", prog, sizeof prog - 1, TILEPX_EMIT, &o, &r, NULL) == 1, "lineinfo");
	CHECK(r.output && strstr(r.output, ".file 1 \"/src/c.tile\"") && strstr(r.output, ".loc 1 8 1") &&
	          strstr(r.output, ".target sm_90a"),
	      "'.file 1' names lineinfo_file, .loc names line 8, the target is overridden");
	tilepx_result_free(&r);
}

int main(void)
{
	defines();
	structured();
	lineinfo();
	UNIT_END();
}
