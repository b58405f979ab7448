/* The CPU reference against expectations computed by hand from the .tile
 * semantics (no emitter involved). */
#include "unit.h"

#include <stdlib.h>

static Module *compile(Ctx *cx, const char *src)
{
	cx->arena = arena_new();
	cx->diags.file = "test.tile";
	cx->diags.src = src;
	cx->diags.len = strlen(src);
	Module *m = parse_module(cx, "test.tile", src, strlen(src));
	if (cx->diags.errors || !check_module(cx, m)) {
		diag_print(&cx->diags, stderr);
		return NULL;
	}
	return m;
}

static uint16_t *buf16(int64_t n, int seed)
{
	uint16_t *p = malloc((size_t)n * 2);
	for (int64_t i = 0; i < n; i++)
		p[i] = (uint16_t)(i * 7 + seed * 1000 + 1);
	return p;
}

static void ldmatrix_demo(void)
{
	Ctx cx = {0};
	Module *m = compile(&cx, "target sm_90\nkernel k\nthreads 32\n"
	                         "param A f16 [8, 16] layout S[(8, 4, 2, 2) : (16, 2, 8, 1)]\n"
	                         "param B f16 [8, 16] layout S[(8, 4, 2, 2) : (16, 2, 8, 1)]\n"
	                         "shared A_smem f16 [8, 16] layout S[(8, 4, 2, 2) : (16, 2, 8, 1)]\n"
	                         "local R f16 [8, 16] layout S[(8, 4, 2, 2) : (4@laneid, 1@laneid, 2, 1)]\n"
	                         "param Rdump f16 [128]\n"
	                         "cta copy A_smem, A\nsync\nwarp copy R, A_smem\ndump R, Rdump\nwarp copy B, R\n");
	CHECK(m != NULL, "demo compiles");
	if (!m)
		return;
	uint16_t *A = buf16(128, 1), *B = buf16(128, 2), *D = buf16(128, 3);
	unsigned char *params[3] = {(unsigned char *)A, (unsigned char *)B, (unsigned char *)D};
	int64_t moved = 0;
	CHECK(ref_run_kernel(&cx, m->kernels[0], params, &moved), "runs");
	/* A's logical (r, c) lives at 16r + 2(c/4) + 8((c/2)%2) + c%2 */
	for (int t = 0; t < 32; t++)
		for (int k = 0; k < 4; k++) {
			int r = t / 4, c = 4 * (t % 4) + k;
			int off = 16 * r + 2 * (c / 4) + 8 * ((c / 2) % 2) + c % 2;
			CHECK(D[t * 4 + k] == A[off], "thread %d register %d", t, k);
		}
	CHECK(!memcmp(A, B, 256), "B equals A");
	CHECK(moved == 3 * 256 + 256, "bytes moved %lld", (long long)moved);
	free(A), free(B), free(D);
	arena_free(cx.arena);
}

static void transpose_and_swizzle(void)
{
	Ctx cx = {0};
	Module *m = compile(&cx, "target sm_90\nkernel k\nthreads 128\ngrid 2\n"
	                         "param A f16 [128, 64]\n"
	                         "param B f16 [128, 64] layout S[(128, 64) : (1, 128)]\n"
	                         "shared S f16 [64, 64] layout swizzle(3, 3, 3)\n"
	                         "cta copy S, A[ctaid*64 : ctaid*64+64, :]\nsync\n"
	                         "cta copy B[ctaid*64 : ctaid*64+64, :], S\n");
	CHECK(m != NULL, "compiles");
	if (!m)
		return;
	uint16_t *A = buf16(128 * 64, 1), *B = buf16(128 * 64, 2);
	unsigned char *params[2] = {(unsigned char *)A, (unsigned char *)B};
	CHECK(ref_run_kernel(&cx, m->kernels[0], params, NULL), "runs");
	int bad = 0;
	for (int r = 0; r < 128; r++)
		for (int c = 0; c < 64; c++)
			bad += B[c * 128 + r] != A[r * 64 + c];
	CHECK(bad == 0, "%d elements not transposed", bad);
	free(A), free(B);
	arena_free(cx.arena);
}

static void warp_regions(void)
{
	/* each warp copies its own row block through its own registers */
	Ctx cx = {0};
	Module *m = compile(&cx, "target sm_90\nkernel k\nthreads 64\n"
	                         "param A u16 [2, 32, 4]\nparam B u16 [2, 32, 4]\nparam D u16 [256]\n"
	                         "local R u16 [32, 4] layout S[(32, 4) : (1@laneid, 1)]\n"
	                         "warp copy R, A[warpid, :, :]\ndump R, D\nwarp copy B[1 - warpid, :, :], R\n");
	CHECK(m != NULL, "compiles");
	if (!m)
		return;
	uint16_t *A = buf16(256, 1), *B = buf16(256, 2), *D = buf16(256, 3);
	unsigned char *params[3] = {(unsigned char *)A, (unsigned char *)B, (unsigned char *)D};
	CHECK(ref_run_kernel(&cx, m->kernels[0], params, NULL), "runs");
	int bad = 0;
	for (int t = 0; t < 64; t++)
		for (int k = 0; k < 4; k++)
			bad += D[t * 4 + k] != A[(t / 32) * 128 + (t % 32) * 4 + k];
	CHECK(bad == 0, "dump: %d wrong", bad);
	CHECK(!memcmp(B, A + 128, 256) && !memcmp(B + 128, A, 256), "blocks swapped");
	free(A), free(B), free(D);
	arena_free(cx.arena);
}

int main(void)
{
	ldmatrix_demo();
	transpose_and_swizzle();
	warp_regions();
	UNIT_END();
}
