/* The launch layer's C side without a GPU: one kernel's launch record
 * (tilepx_launch_of) with its params' shapes and strides, the packed
 * arguments in ABI order (tilepx_cuda_pack needs no driver for a kernel
 * without tensor maps), and a TMA kernel with a cluster launched through
 * host stand-ins for the driver (tilepx_cuda_open_with), which record what
 * the layer passes to cuTensorMapEncodeTiled, cuFuncSetAttribute and
 * cuLaunchKernelEx. */
#include "unit.h"
#include "../../include/tilepx/tilepx.h"
#include "launch_cuda.h"

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
	CHECK(r.diagnostics && strstr(r.diagnostics, "two.tile:5:1: error:") && strstr(r.diagnostics, "N % 4 == 0"),
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

/* what the stand-ins saw */
static struct {
	int encodes, dtype, rank, swizzle, attr_value;
	void *map, *address;
	cuuint64_t dims[5], strides[4];
	cuuint32_t box[5];
	CUlaunchConfig cfg;
	CUlaunchAttribute attr;
	void **args;
} seen;

static CUresult st_ok(void) { return CUDA_SUCCESS; }
static CUresult st_error_string(CUresult r, const char **s)
{
	*s = r ? "a stand-in error" : "no error";
	return CUDA_SUCCESS;
}
static CUresult st_init(unsigned f) { return f ? 1 : CUDA_SUCCESS; }
static CUresult st_count(int *n)
{
	*n = 1;
	return CUDA_SUCCESS;
}
static CUresult st_encode(void *map, int dtype, cuuint32_t rank, void *addr, const cuuint64_t *dims,
                          const cuuint64_t *strides, const cuuint32_t *box, const cuuint32_t *es, int il, int sw,
                          int l2, int oob)
{
	(void)es, (void)il, (void)l2, (void)oob;
	seen.encodes++;
	seen.map = map, seen.dtype = dtype, seen.rank = (int)rank, seen.address = addr, seen.swizzle = sw;
	memcpy(seen.dims, dims, rank * sizeof *dims);
	memcpy(seen.strides, strides, (rank - 1) * sizeof *strides);
	memcpy(seen.box, box, rank * sizeof *box);
	memset(map, 0xab, 128);
	return (uintptr_t)map % 64 ? 1 : CUDA_SUCCESS; /* the driver wants the map aligned */
}
static CUresult st_set_attribute(CUfunction f, int attr, int v)
{
	(void)f;
	seen.attr_value = attr == CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES ? v : -1;
	return CUDA_SUCCESS;
}
static CUresult st_launch(const CUlaunchConfig *cfg, CUfunction f, void **args, void **extra)
{
	(void)f, (void)extra;
	seen.cfg = *cfg;
	if (cfg->numAttrs)
		seen.attr = cfg->attrs[0];
	seen.args = args;
	return CUDA_SUCCESS;
}

static void *stand_in(void *ctx, const char *name)
{
	(void)ctx;
	static const struct {
		const char *name;
		void *fn;
	} table[] = {{"cuGetErrorString", (void *)st_error_string}, {"cuInit", (void *)st_init},
	             {"cuDeviceGetCount", (void *)st_count},        {"cuTensorMapEncodeTiled", (void *)st_encode},
	             {"cuFuncSetAttribute", (void *)st_set_attribute}, {"cuLaunchKernelEx", (void *)st_launch}};
	for (size_t i = 0; i < sizeof table / sizeof *table; i++)
		if (!strcmp(table[i].name, name))
			return table[i].fn;
	return (void *)st_ok; /* the rest are not called here */
}

/* a TMA load on a cluster of 2 with dynamic shared memory, K from a scalar */
static const char tma[] = "target sm_90a\nkernel t\nthreads 128\ncluster 2\nparam K u32\nassume K % 8 == 0\nassume K <= 65536\n"
                          "grid cdiv(K, 32)\nparam A f16 [64, K] tma\nparam B f16 [64, K]\n"
                          "shared S f16 [64, 64] layout swizzle(3, 3, 3)\nmbarrier bar\n"
                          "mbarrier.init bar\nmbarrier.expect_tx bar\n"
                          "cta copy_async S, A[0:64, ctaid*32 : ctaid*32 + 64] mbarrier bar\nmbarrier.wait bar\n";

static void check_stand_in_launch(void)
{
	char why[300] = "";
	tilepx_cuda *cu = tilepx_cuda_open_with(stand_in, NULL, why, sizeof why);
	CHECK(cu != NULL, "opened over stand-ins: %s", why);
	if (!cu)
		return;
	tilepx_result r;
	tilepx_launch *l = calloc(1, sizeof *l);
	tilepx_packed *p = aligned_alloc(128, sizeof *p);
	const char *sets[] = {"K=256"};
	CHECK(tilepx_launch_of("t.tile", tma, sizeof tma - 1, NULL, NULL, sets, 1, l, &r) == 1, "bound: %s",
	      r.diagnostics ? r.diagnostics : "");
	tilepx_result_free(&r);
	unsigned long long ptr[2] = {0x10000, 0x20000};
	CHECK(tilepx_cuda_pack(cu, l, ptr, 2, p, why, sizeof why) == 1, "packed: %s", why);
	CHECK(seen.encodes == 1 && seen.map == p->tensor_maps[0] && seen.address == (void *)0x10000, "A's map, at A");
	CHECK(seen.rank == 2 && seen.dims[0] == 256 && seen.dims[1] == 64 && seen.strides[0] == 512, "dims and stride");
	CHECK(seen.box[0] == 64 && seen.box[1] == 64 && seen.swizzle == l->tensor_maps[0].swizzle, "box, swizzle");
	CHECK(p->nargs == 4 && p->values[0] == 0x10000 && p->values[1] == 0x20000 && *(unsigned *)p->args[2] == 256 &&
	          p->args[3] == p->tensor_maps[0],
	      "pointers, K, the map, in ABI order");
	CHECK(tilepx_cuda_launch(cu, (void *)0x1, p, (void *)0x77, why, sizeof why) == 1, "launched: %s", why);
	CHECK(seen.cfg.gridDimX == 8 && seen.cfg.gridDimY == 1 && seen.cfg.blockDimX == 128, "grid, block");
	CHECK(seen.cfg.hStream == (CUstream)0x77 && seen.args == p->args, "stream, args");
	CHECK(seen.cfg.numAttrs == 1 && seen.attr.id == CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION &&
	          seen.attr.value.clusterDim.x == 2 && seen.attr.value.clusterDim.y == 1,
	      "the cluster attribute");
	CHECK(seen.cfg.sharedMemBytes == l->dynamic_shared_bytes && (l->dynamic_shared_bytes == 0) ==
	                                                                (seen.attr_value == 0),
	      "dynamic shared memory %lld", l->dynamic_shared_bytes);
	free(p);
	free(l);
	tilepx_cuda_close(cu);
}

/* a rank-4 param with runtime extents: the 4-D tensor map the layer
 * encodes from the launch's B, H, S (innermost first, strides in bytes),
 * the box 1 in the point-indexed dimensions, and the param's record */
static const char rank4[] = "target sm_90\nkernel q\nthreads 128\nparam B u32\nparam H u32\nparam S u32\n"
                            "assume B <= 4\nassume H <= 16\nassume S <= 65536\ngrid cdiv(S, 64), H\n"
                            "param Q bf16 [B, H, S, 64] tma\nshared T bf16 [64, 64] layout swizzle(3, 3, 3)\n"
                            "mbarrier bar\nmbarrier.init bar\nrepeat B as b {\nmbarrier.expect_tx bar\n"
                            "cta copy_async T, Q[b, ctaid_y, ctaid*64 : ctaid*64 + 64, :] mbarrier bar\n"
                            "mbarrier.wait bar\nsync\n}\n";

static void check_rank4_launch(void)
{
	char why[300] = "";
	tilepx_cuda *cu = tilepx_cuda_open_with(stand_in, NULL, why, sizeof why);
	if (!cu)
		return;
	tilepx_result r;
	tilepx_launch *l = calloc(1, sizeof *l);
	tilepx_packed *p = aligned_alloc(128, sizeof *p);
	CHECK(tilepx_launch_of("q.tile", rank4, sizeof rank4 - 1, NULL, NULL, NULL, 0, l, &r) == 1, "unbound: %s",
	      r.diagnostics ? r.diagnostics : "");
	tilepx_result_free(&r);
	tilepx_tensor_map *t = &l->tensor_maps[0];
	CHECK(l->needs_values && t->rank == 4 && t->global_dims[0] == 64 && !t->global_dims[1] && !t->global_dims[2] &&
	          !t->global_dims[3] && !t->global_strides[0] && !t->global_strides[2],
	      "unbound: the runtime dims and strides are 0");
	const char *sets[] = {"B=2", "H=3", "S=100"};
	CHECK(tilepx_launch_of("q.tile", rank4, sizeof rank4 - 1, NULL, NULL, sets, 3, l, &r) == 1, "bound: %s",
	      r.diagnostics ? r.diagnostics : "");
	tilepx_result_free(&r);
	tilepx_param *q = &l->params[0];
	CHECK(q->rank == 4 && q->dims[0] == 2 && q->dims[1] == 3 && q->dims[2] == 100 && q->dims[3] == 64, "Q's dims");
	CHECK(q->strides[0] == 19200 && q->strides[1] == 6400 && q->strides[2] == 64 && q->strides[3] == 1 &&
	          q->storage == 38400 && q->dim_scalar[0] == 0 && q->dim_scalar[2] == 2 && q->dim_scalar[3] == -1,
	      "Q's strides in elements, storage %lld", q->storage);
	CHECK(l->grid[0] == 2 && l->grid[1] == 3, "grid cdiv(100, 64) x 3");
	unsigned long long ptr[1] = {0x40000};
	seen.encodes = 0;
	CHECK(tilepx_cuda_pack(cu, l, ptr, 1, p, why, sizeof why) == 1, "packed: %s", why);
	CHECK(seen.encodes == 1 && seen.rank == 4 && seen.address == (void *)0x40000, "one 4-D map at Q");
	CHECK(seen.dims[0] == 64 && seen.dims[1] == 100 && seen.dims[2] == 3 && seen.dims[3] == 2, "dims innermost first");
	CHECK(seen.strides[0] == 128 && seen.strides[1] == 12800 && seen.strides[2] == 38400, "strides in bytes");
	CHECK(seen.box[0] == 64 && seen.box[1] == 64 && seen.box[2] == 1 && seen.box[3] == 1, "box 64x64, 1 per head");
	free(p);
	free(l);
	tilepx_cuda_close(cu);
}

int main(void)
{
	check_record();
	check_pack();
	check_stand_in_launch();
	check_rank4_launch();
	/* no driver: a clear message, not a crash (with one, an open and close) */
	char why[300] = "";
	tilepx_cuda *cu = tilepx_cuda_open(why, sizeof why);
	CHECK(cu || !strncmp(why, "no CUDA driver: libcuda.so.1 not found", 38) || !strncmp(why, "no CUDA GPU", 11),
	      "%s", why);
	tilepx_cuda_close(cu);
	UNIT_END();
}
