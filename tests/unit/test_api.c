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

	/* launch facts: the tensor maps of a TMA pipeline with dynamic shared memory */
	static const char tma[] = "target sm_90\nkernel t\nthreads 32\ngrid 2\n"
	                          "param A u16 [128, 128] tma\nparam B u16 [128, 128] tma\n"
	                          "shared S u16 [4, 64, 128]\nmbarrier bar\n"
	                          "mbarrier.init bar\nmbarrier.expect_tx bar\n"
	                          "cta copy_async S[0, :, :], A[ctaid*64 : ctaid*64 + 64, :] mbarrier bar\n"
	                          "mbarrier.wait bar\ncta copy_async B[ctaid*64 : ctaid*64 + 64, :], S[0, :, :]\n"
	                          "bulk.commit\nbulk.wait 0\n";
	tilepx_launch l[2];
	CHECK(tilepx_launches("t.tile", tma, sizeof tma - 1, NULL, l, 2, &r) == 1, "one kernel: %s",
	      r.diagnostics ? r.diagnostics : "");
	CHECK(!strcmp(l[0].kernel, "t") && l[0].grid[0] == 2 && l[0].block == 32 && l[0].nparams == 2, "grid and block");
	CHECK(l[0].dynamic_shared_bytes == 65536 + 8, "64 KiB + one mbarrier: %lld", l[0].dynamic_shared_bytes);
	CHECK(l[0].ntensor_maps == 2, "two maps");
	const tilepx_tensor_map *tm = &l[0].tensor_maps[1];
	CHECK(!strcmp(tm->param, "B") && tm->param_index == 1 && tm->kernel_param_index == 3, "B's map is param 3");
	CHECK(tm->data_type == 1 && tm->rank == 2 && tm->global_dims[0] == 128 && tm->global_dims[1] == 128,
	      "u16, 128 x 128");
	CHECK(tm->global_strides[0] == 256 && tm->box_dims[0] == 128 && tm->box_dims[1] == 64, "stride 256 B, box 128x64");
	CHECK(tm->swizzle == 0 && tm->interleave == 0 && tm->element_strides[1] == 1, "no swizzle");
	CHECK(l[0].cluster[0] == 0 && l[0].cluster[1] == 0, "no cluster: {0, 0}");
	tilepx_result_free(&r);
	/* a kernel with a cluster: its dims in the launch record */
	static const char cl[] = "target sm_90\nkernel c\nthreads 32\ngrid 8, 2\ncluster 4, 2\n"
	                         "param A f32 [32]\nshared S f32 [32]\ncluster.sync\ncta copy S, A\n";
	CHECK(tilepx_launches("c.tile", cl, sizeof cl - 1, NULL, l, 2, &r) == 1, "cluster kernel: %s",
	      r.diagnostics ? r.diagnostics : "");
	CHECK(l[0].grid[0] == 8 && l[0].grid[1] == 2 && l[0].cluster[0] == 4 && l[0].cluster[1] == 2,
	      "cluster 4 x 2: %lld x %lld", l[0].cluster[0], l[0].cluster[1]);
	tilepx_result_free(&r);
	CHECK(tilepx_launches("t.tile", tma, sizeof tma - 12, NULL, l, 2, &r) == -1, "a program with errors: -1");
	CHECK(r.diagnostics && strstr(r.diagnostics, "error"), "and says why");
	tilepx_result_free(&r);
	CHECK(tilepx_launches("t.tile", tma, sizeof tma - 1, NULL, NULL, 1, &r) == -1, "NULL out with max > 0");
	tilepx_result_free(&r);

	/* runtime sizes: scalars after the pointers, maps after the scalars; values bind the launch */
	static const char rg[] = "target sm_90\nkernel g\nthreads 128\nparam M u32\nparam K u32\n"
	                         "assume K % 8 == 0\nassume K <= 65536\ngrid cdiv(M, 64), cdiv(K, 64)\n"
	                         "param A bf16 [M, K] tma\nparam B bf16 [M, K]\nshared S bf16 [64, 64]\nmbarrier bar\n"
	                         "mbarrier.init bar\nmbarrier.expect_tx bar\n"
	                         "cta copy_async S, A[ctaid*64 : ctaid*64 + 64, ctaid_y*64 : ctaid_y*64 + 64] mbarrier bar\n"
	                         "mbarrier.wait bar\ncta copy B[ctaid*64 : ctaid*64 + 64, ctaid_y*64 : ctaid_y*64 + 64], S\n";
	CHECK(tilepx_launches("g.tile", rg, sizeof rg - 1, NULL, l, 2, &r) == 1, "ragged kernel: %s",
	      r.diagnostics ? r.diagnostics : "");
	CHECK(l[0].needs_values && l[0].grid[0] == 0 && l[0].grid[1] == 0 && l[0].nscalars == 2, "unbound: needs values");
	CHECK(!strcmp(l[0].scalars[1].name, "K") && l[0].scalars[1].kernel_param_index == 3 && l[0].scalars[1].bytes == 4,
	      "K is kernel param 3, 4 bytes");
	CHECK(l[0].tensor_maps[0].kernel_param_index == 4 && l[0].tensor_maps[0].global_dims[0] == 0, "map after scalars");
	tilepx_result_free(&r);
	const char *sets[] = {"M=1000", "K=72"};
	CHECK(tilepx_launches_set("g.tile", rg, sizeof rg - 1, NULL, sets, 2, l, 2, &r) == 1, "bound: %s",
	      r.diagnostics ? r.diagnostics : "");
	CHECK(!l[0].needs_values && l[0].grid[0] == 16 && l[0].grid[1] == 2, "grid cdiv(1000, 64) x cdiv(72, 64): %lld x %lld",
	      l[0].grid[0], l[0].grid[1]);
	CHECK(l[0].scalars[0].value == 1000 && l[0].scalars[1].value == 72, "values");
	tm = &l[0].tensor_maps[0];
	CHECK(tm->global_dims[0] == 72 && tm->global_dims[1] == 1000 && tm->global_strides[0] == 144, "map of 1000 x 72");
	tilepx_result_free(&r);
	const char *broken[] = {"M=1000", "K=70"};
	CHECK(tilepx_launches_set("g.tile", rg, sizeof rg - 1, NULL, broken, 2, l, 2, &r) == -1, "a broken fact: -1");
	CHECK(r.diagnostics && strstr(r.diagnostics, "K % 8 == 0"), "names the fact: %s", r.diagnostics ? r.diagnostics : "");
	tilepx_result_free(&r);
	/* facts are a conjunction: a later, looser bound does not replace an earlier one */
	static const char rg2[] = "target sm_90\nkernel g\nthreads 32\nparam M u32\nassume M <= 100\nassume M <= 1000\n"
	                          "assume M % 2 == 0\nassume M % 3 == 0\nparam A f32 [M]\nshared S f32 [32]\n"
	                          "cta copy S, A[0:32]\n";
	const char *m200[] = {"M=200"}, *m64[] = {"M=64"};
	CHECK(tilepx_launches_set("f.tile", rg2, sizeof rg2 - 1, NULL, m200, 1, l, 2, &r) == -1 && r.diagnostics &&
	          strstr(r.diagnostics, "'M <= 100' (line 5)"),
	      "the earlier bound holds: %s", r.diagnostics ? r.diagnostics : "");
	tilepx_result_free(&r);
	CHECK(tilepx_launches_set("f.tile", rg2, sizeof rg2 - 1, NULL, m64, 1, l, 2, &r) == -1 && r.diagnostics &&
	          strstr(r.diagnostics, "'M % 3 == 0' (line 8)"),
	      "every divisor holds: %s", r.diagnostics ? r.diagnostics : "");
	tilepx_result_free(&r);
	/* divisors whose lcm passes 2^31 - 1 leave only 0 */
	static const char rg3[] = "target sm_90\nkernel g\nthreads 32\nparam M u32\nassume M % 1048573 == 0\n"
	                          "assume M % 1048571 == 0\nparam A f32 [M]\nshared S f32 [32]\ncta copy S, A[0:32]\n";
	const char *m0[] = {"M=0"}, *mbig[] = {"M=1048573"};
	CHECK(tilepx_launches_set("z.tile", rg3, sizeof rg3 - 1, NULL, m0, 1, l, 2, &r) == 1, "M=0 keeps both: %s",
	      r.diagnostics ? r.diagnostics : "");
	tilepx_result_free(&r);
	CHECK(tilepx_launches_set("z.tile", rg3, sizeof rg3 - 1, NULL, mbig, 1, l, 2, &r) == -1 && r.diagnostics &&
	          strstr(r.diagnostics, "'M % 1048571 == 0' (line 6)"),
	      "a multiple of one divisor only: %s", r.diagnostics ? r.diagnostics : "");
	tilepx_result_free(&r);
	CHECK(tilepx_launches_set("g.tile", rg, sizeof rg - 1, NULL, sets, 1, l, 2, &r) == -1, "a missing value: -1");
	CHECK(r.diagnostics && strstr(r.diagnostics, "'K'"), "names it");
	tilepx_result_free(&r);
	/* a malformed value is an argument error, never skipped (the program's value) or saturated */
	const char *malformed[][2] = {{"M=1000", "K"}, {"M=1000", "K=9223372036854775808"}, {"M=1000", "K=72x"},
	                              {"M=1000", "K= 72"}, {"M=-1", "K=72"}, {"M=1000", NULL}, {"K=72", "K=72"}};
	for (int i = 0; i < 7; i++) {
		CHECK(tilepx_launches_set("g.tile", rg, sizeof rg - 1, NULL, malformed[i], 2, l, 2, &r) == -1,
		      "malformed set %d: -1", i);
		CHECK(r.diagnostics && strstr(r.diagnostics, "tilepx_launches_set: error: sets: '"), "says which: %s",
		      r.diagnostics ? r.diagnostics : "");
		tilepx_result_free(&r);
	}
	CHECK(tilepx_launches_set("g.tile", rg, sizeof rg - 1, NULL, NULL, 2, l, 2, &r) == -1, "NULL sets with nsets 2");
	tilepx_result_free(&r);
	/* a size past 2^63 bytes is refused, not wrapped */
	static const char huge[] = "target sm_90\nkernel h\nthreads 32\nparam M u32\nparam K u32\n"
	                           "param A f64 [M, K]\nshared S f64 [32]\ncta copy S, A[0, 0:32]\n";
	const char *big[] = {"M=2147483647", "K=2147483647"};
	CHECK(tilepx_launches_set("h.tile", huge, sizeof huge - 1, NULL, big, 2, l, 2, &r) == -1, "2^65 bytes: -1");
	CHECK(r.diagnostics && strstr(r.diagnostics, "more than 2^63 - 1 bytes"), "says why: %s",
	      r.diagnostics ? r.diagnostics : "");
	tilepx_result_free(&r);

	tilepx_result_free(NULL);
	tilepx_result_free(&r); /* twice is fine: the first call zeroed it */
	CHECK(1, "free(NULL) and double free are harmless");
	UNIT_END();
}
