/* The launch layer's C side without a GPU: one kernel's launch record
 * (tilepx_launch_of) with its params' shapes and strides, and the packed
 * arguments in ABI order (tilepx_cuda_pack needs no driver for a kernel
 * without tensor maps). */
#include "unit.h"
#include "../../include/tilepx/tilepx.h"

#include <stdlib.h>

static const char two[] = "target sm_90\n"
                          "kernel first\nthreads 32\nparam N u32\nassume N % 4 == 0\ngrid cdiv(N, 32)\n"
                          "param X f32 [N]\nshared S f32 [32]\ncta copy S, X[ctaid*32 : ctaid*32 + 32]\n"
                          "kernel second\nthreads 128\nparam M u32\nparam K u32\nparam LDA u32\n"
                          "assume K % 8 == 0\nassume LDA % 8 == 0\ngrid cdiv(M, 64)\n"
                          "param A bf16 [M, K] ld LDA\nparam B f16 [64, 32]\nparam C u8 [M, 8]\n"
                          "shared T bf16 [64, 8]\n"
                          "cta copy T, A[ctaid*64 : ctaid*64 + 64, 0:8]\n";

static void check_record(void)
{
	tilepx_result r;
	tilepx_launch *l = calloc(1, sizeof *l);
	const char *sets[] = {"M=100", "K=16", "LDA=24"};
	CHECK(tilepx_launch_of("two.tile", two, sizeof two - 1, NULL, "second", sets, 3, l, &r) == 1, "bound: %s",
	      r.diagnostics ? r.diagnostics : "");
	tilepx_result_free(&r);
	CHECK(!strcmp(l->kernel, "second") && l->line == 10 && l->nparams == 3 && l->nscalars == 3, "the kernel");
	CHECK(l->grid[0] == 2 && l->block == 128 && !l->needs_values, "grid %lld", l->grid[0]);
	tilepx_param *a = &l->params[0], *b = &l->params[1], *c = &l->params[2];
	CHECK(!strcmp(a->name, "A") && !strcmp(a->dtype, "bf16") && a->elem_bytes == 2 && a->rank == 2, "A");
	CHECK(a->dims[0] == 100 && a->dims[1] == 16 && a->strides[0] == 24 && a->strides[1] == 1, "A's lines");
	CHECK(a->dim_scalar[0] == 0 && a->dim_scalar[1] == 1 && a->ld_scalar == 2 && a->storage == 99 * 24 + 16,
	      "A's scalars, storage %lld", a->storage);
	CHECK(b->dims[0] == 64 && b->strides[0] == 32 && b->dim_scalar[0] == -1 && !b->has_layout && b->line == 19,
	      "B row-major, constant");
	CHECK(c->dims[0] == 100 && c->strides[0] == 8 && c->storage == 800, "C");
	/* the first kernel's scalar needs no value when the second is asked for */
	CHECK(tilepx_launch_of("two.tile", two, sizeof two - 1, NULL, NULL, NULL, 0, l, &r) == 1, "unbound");
	tilepx_result_free(&r);
	CHECK(!strcmp(l->kernel, "first") && l->needs_values && l->params[0].dims[0] == 0, "the first, unbound");
	const char *bad[] = {"N=6"};
	CHECK(tilepx_launch_of("two.tile", two, sizeof two - 1, NULL, "first", bad, 1, l, &r) == 0, "a broken fact");
	CHECK(r.diagnostics && strstr(r.diagnostics, "two.tile:2:8: error:") && strstr(r.diagnostics, "N % 4 == 0"),
	      "located: %s", r.diagnostics ? r.diagnostics : "");
	tilepx_result_free(&r);
	CHECK(tilepx_launch_of("two.tile", two, sizeof two - 1, NULL, "first", NULL, 2, l, &r) == 0, "NULL sets");
	CHECK(r.diagnostics && strstr(r.diagnostics, "sets is NULL"), "says so");
	tilepx_result_free(&r);
	CHECK(tilepx_launch_of("two.tile", two, sizeof two - 1, NULL, "first", sets, -1, l, &r) == 0, "nsets < 0");
	tilepx_result_free(&r);
	const char *malformed[] = {"N=x"};
	CHECK(tilepx_launch_of("two.tile", two, sizeof two - 1, NULL, "first", malformed, 1, l, &r) == 0, "N=x");
	CHECK(r.diagnostics && strstr(r.diagnostics, "not a decimal integer"), "%s", r.diagnostics ? r.diagnostics : "");
	tilepx_result_free(&r);
	CHECK(tilepx_launch_of("two.tile", two, sizeof two - 1, NULL, "third", NULL, 0, l, &r) == 0, "no such kernel");
	CHECK(r.diagnostics && strstr(r.diagnostics, "no kernel named 'third'"), "says so");
	tilepx_result_free(&r);
	free(l);
}

static void check_pack(void)
{
	tilepx_result r;
	tilepx_launch *l = calloc(1, sizeof *l);
	tilepx_packed *p = aligned_alloc(128, sizeof *p);
	const char *sets[] = {"M=65", "K=8", "LDA=8"};
	CHECK(tilepx_launch_of("two.tile", two, sizeof two - 1, NULL, "second", sets, 3, l, &r) == 1, "bound");
	tilepx_result_free(&r);
	unsigned long long ptr[3] = {0x1000, 0x2000, 0x3000};
	char why[300] = "";
	CHECK(tilepx_cuda_pack(NULL, l, ptr, 3, p, why, sizeof why) == 1, "packed: %s", why);
	CHECK(p->nargs == 6 && p->grid[0] == 2 && p->grid[1] == 1 && p->block[0] == 128 && !p->cluster[0], "dims");
	for (int i = 0; i < 3; i++)
		CHECK(p->args[i] == &p->values[i] && p->values[i] == ptr[i], "pointer %d first", i);
	/* the scalars after the pointers, in declaration order */
	CHECK(*(unsigned *)p->args[3] == 65 && *(unsigned *)p->args[4] == 8 && *(unsigned *)p->args[5] == 8, "scalars");
	CHECK(tilepx_cuda_pack(NULL, l, ptr, 2, p, why, sizeof why) == 0 && strstr(why, "takes 3 pointers, 2 given"),
	      "a pointer short: %s", why);
	CHECK(tilepx_launch_of("two.tile", two, sizeof two - 1, NULL, "second", NULL, 0, l, &r) == 1, "unbound");
	tilepx_result_free(&r);
	CHECK(tilepx_cuda_pack(NULL, l, ptr, 3, p, why, sizeof why) == 0 && strstr(why, "without values"), "%s", why);
	free(p);
	free(l);
}

int main(void)
{
	check_record();
	check_pack();
	/* no driver: a clear message, not a crash (with one, an open and close) */
	char why[300] = "";
	tilepx_cuda *cu = tilepx_cuda_open(why, sizeof why);
	CHECK(cu || !strncmp(why, "no CUDA driver: libcuda.so.1 not found", 38) || !strncmp(why, "no CUDA GPU", 11),
	      "%s", why);
	tilepx_cuda_close(cu);
	UNIT_END();
}
