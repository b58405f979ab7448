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

/* 8-bit floats: a random fill is finite (no e4m3 NaN code, no e5m2
 * infinity or NaN), and wgmma reads e4m3's S.1111.111 as NaN and e5m2's
 * top exponent as infinity, not as the finite 480 and 65536 their bits
 * would give with the ordinary formula */
static void fp8_specials(void)
{
	static const char *const types[2] = {"e4m3", "e5m2"};
	for (int t = 0; t < 2; t++) {
		Ctx cx = {0};
		char src[1024];
		snprintf(src, sizeof src,
		         "target sm_90a\nkernel k\nthreads 128\nparam A %s [64, 32]\nparam B %s [8, 32]\nparam C f32 [64, 8]\n"
		         "shared As %s [64, 32] layout swizzle(4, 1, 3)\nshared Bs %s [8, 32] layout swizzle(4, 1, 3)\n"
		         "local D f32 [64, 8] layout S[(4, 2, 8, 1, 4, 2) : (1@wid_in_wg, 2, 4@laneid, 4, 1@laneid, 1)]\n"
		         "cta copy As, A\ncta copy Bs, B\nfence.proxy_async\nsync\nwgmma.fence\n"
		         "warpgroup mma D, As, Bs scale_d 0\nwgmma.commit\nwgmma.wait 0\nwarpgroup copy C, D\n",
		         types[t], types[t], types[t], types[t]);
		Module *m = compile(&cx, src);
		CHECK(m != NULL, "%s wgmma compiles", types[t]);
		if (!m)
			continue;
		const Buffer *a = NULL;
		for (size_t i = 0; i < m->kernels[0]->nbufs; i++)
			if (!strcmp(m->kernels[0]->bufs[i]->name, "A"))
				a = m->kernels[0]->bufs[i];
		unsigned char fill[64 * 32];
		ref_fill_param(a, fill, 0);
		int specials = 0;
		for (int i = 0; i < 64 * 32; i++)
			specials += t == 0 ? (fill[i] & 0x7f) == 0x7f : (fill[i] & 0x7c) == 0x7c;
		CHECK(specials == 0, "%s: %d NaN/infinity codes in a random fill", types[t], specials);
		/* A and B all 1.0 but A[0, 0]: NaN (e4m3) or -infinity (e5m2) */
		unsigned char A[64 * 32], B[8 * 32];
		float C[64 * 8];
		memset(A, t == 0 ? 0x38 : 0x3c, sizeof A);
		memset(B, t == 0 ? 0x38 : 0x3c, sizeof B);
		A[0] = t == 0 ? 0x7f : 0xfc;
		unsigned char *params[3] = {A, B, (unsigned char *)C};
		int64_t moved = 0;
		CHECK(ref_run_kernel(&cx, m->kernels[0], params, &moved), "%s wgmma runs", types[t]);
		int row0 = 1, rest = 1;
		for (int n = 0; n < 8; n++)
			row0 &= t == 0 ? C[n] != C[n] : C[n] < -1e38f;
		for (int i = 8; i < 64 * 8; i++)
			rest &= C[i] == 32.0f;
		CHECK(row0, "%s: row 0 of C is %s (got %g)", types[t], t == 0 ? "NaN" : "-infinity", (double)C[0]);
		CHECK(rest, "%s: the other rows are 32", types[t]);
		arena_free(cx.arena);
	}
}

int main(void)
{
	ldmatrix_demo();
	transpose_and_swizzle();
	warp_regions();
	fp8_specials();
	UNIT_END();
}
