/* Layout algebra: TIRx's canonical cases, group/slice/refine, and property
 * tests that every operation preserves apply() on every coordinate. */
#include "unit.h"

static void canonical_cases(void)
{
	Layout a = mk(5, (int64_t[]){8, 8, 8, 4, 2}, (int64_t[]){512, 64, 8, 2, 1});
	lay_canonicalize(&a);
	CHECK(!strcmp(fmt(&a), "S[(4096):(1)]"), "got %s", fmt(&a));
	Layout b = mk(4, (int64_t[]){8, 2, 3, 6}, (int64_t[]){6, 24, 6, 1});
	lay_canonicalize(&b);
	CHECK(!strcmp(fmt(&b), "S[(8, 2, 18):(6, 24, 1)]"), "got %s", fmt(&b));
	Layout c = mk(3, (int64_t[]){1, 4, 1}, (int64_t[]){7, 1, 9});
	lay_canonicalize(&c);
	CHECK(!strcmp(fmt(&c), "S[(4):(1)]"), "got %s", fmt(&c));
	/* thread axes fuse only with their own axis */
	Layout d = {0};
	d.n = 4;
	d.it[0] = (Iter){8, 4, AX_LANEID};
	d.it[1] = (Iter){4, 1, AX_LANEID};
	d.it[2] = (Iter){2, 2, AX_M};
	d.it[3] = (Iter){2, 1, AX_M};
	lay_canonicalize(&d);
	CHECK(!strcmp(fmt(&d), "S[(32, 4):(1@laneid, 1)]"), "got %s", fmt(&d));
	/* fuse by scope: warpgroup and cta */
	Layout e = {0};
	e.n = 2;
	e.it[0] = (Iter){4, 1, AX_WID_IN_WG};
	e.it[1] = (Iter){32, 1, AX_LANEID};
	lay_fuse_threads(&e, SC_WARPGROUP);
	lay_canonicalize(&e);
	CHECK(!strcmp(fmt(&e), "S[(128):(1@tid_in_wg)]"), "got %s", fmt(&e));
	Layout f = {0};
	f.n = 2;
	f.it[0] = (Iter){2, 1, AX_WGID};
	f.it[1] = (Iter){128, 1, AX_TID_IN_WG};
	lay_fuse_threads(&f, SC_CTA);
	lay_canonicalize(&f);
	CHECK(!strcmp(fmt(&f), "S[(256):(1@tx)]"), "got %s", fmt(&f));
}

static void storage_cases(void)
{
	/* the m8n8 fragment: per-thread storage is the 2 x 2 register block */
	Layout f = {0};
	f.n = 4;
	f.it[0] = (Iter){8, 4, AX_LANEID};
	f.it[1] = (Iter){4, 1, AX_LANEID};
	f.it[2] = (Iter){2, 2, AX_M};
	f.it[3] = (Iter){2, 1, AX_M};
	lay_storage(&f);
	CHECK(!strcmp(fmt(&f), "S[(2, 2):(2, 1)]"), "got %s", fmt(&f));
	Layout g = mk(2, (int64_t[]){4, 4}, (int64_t[]){4, 1});
	lay_storage(&g);
	CHECK(g.n == 2, "no thread axes: unchanged");
}

static void group_cases(void)
{
	Layout a = mk(1, (int64_t[]){4096}, (int64_t[]){1}), g;
	int seps[8];
	CHECK(lay_group(&a, (int64_t[]){128, 32}, 2, &g, seps), "group 4096 by 128x32");
	CHECK(!strcmp(fmt(&g), "S[(128, 32):(32, 1)]"), "got %s", fmt(&g));
	CHECK(seps[0] == 0 && seps[1] == 1 && seps[2] == 2, "seps");
	Layout b = mk(2, (int64_t[]){6, 4}, (int64_t[]){4, 1});
	CHECK(!lay_group(&b, (int64_t[]){4, 6}, 2, &g, seps), "6x4 cannot group as 4x6");
	Layout c = mk(2, (int64_t[]){8, 16}, (int64_t[]){16, 1});
	CHECK(lay_group(&c, (int64_t[]){2, 4, 4, 4}, 4, &g, seps), "split both iters");
	CHECK(!strcmp(fmt(&g), "S[(2, 4, 4, 4):(64, 16, 4, 1)]"), "got %s", fmt(&g));
}

static void slice_cases(void)
{
	/* rows 32:64 and columns 0:32 of a 64x64 row-major tensor */
	Iter out[8];
	int n;
	int64_t off[AX_COUNT];
	Iter row[1] = {{64, 64, AX_M}};
	CHECK(lay_slice_group(row, 1, 32, 32, out, &n, off) && n == 1 && out[0].ext == 32 && off[AX_M] == 2048,
	      "row slice");
	/* a group of two iters: begin must fall on boundaries */
	Iter g[2] = {{4, 100, AX_M}, {8, 1, AX_M}};
	CHECK(lay_slice_group(g, 2, 8, 16, out, &n, off) && n == 2 && off[AX_M] == 100, "aligned two-iter slice");
	CHECK(lay_slice_group(g, 2, 2, 4, out, &n, off) && n == 1 && out[0].ext == 4 && off[AX_M] == 2,
	      "partial inner slice");
	CHECK(!lay_slice_group(g, 2, 4, 8, out, &n, off), "a slice across the inner boundary is not a layout");
	CHECK(!lay_slice_group(g, 2, 30, 4, out, &n, off), "out of range");
}

static void swizzle_cases(void)
{
	Swizzle sw = {true, 3, 3, 3};
	/* 128B swizzle on f16: row r, chunk c -> chunk c ^ (r % 8) */
	for (int r = 0; r < 8; r++)
		for (int c = 0; c < 8; c++) {
			int64_t m = r * 64 + c * 8 + 5;
			CHECK(swz_apply(sw, m) == r * 64 + ((c ^ r) * 8) + 5, "swizzle r=%d c=%d", r, c);
		}
	/* a permutation of each 512-element block */
	static char seen[512];
	int dup = 0;
	for (int64_t m = 0; m < 512; m++) {
		int64_t a = swz_apply(sw, m);
		dup += a < 0 || a >= 512 || seen[a]++;
	}
	CHECK(dup == 0, "swizzle is a permutation");
}

/* random layouts: group / canonicalize / slice / refine preserve apply() */
static Layout random_layout(uint64_t *s, int64_t *size)
{
	Layout L = {0};
	L.n = 1 + (int)(rnd(s) % 5);
	int64_t span = 1;
	static const int64_t exts[] = {1, 2, 3, 4, 6, 8};
	for (int i = L.n - 1; i >= 0; i--) {
		int64_t e = exts[rnd(s) % 6];
		L.it[i] = (Iter){e, span, AX_M};
		span *= e;
	}
	/* shuffle strides to make a permuted (still injective) layout */
	for (int i = 0; i < L.n; i++) {
		int j = (int)(rnd(s) % (uint64_t)L.n);
		int64_t t = L.it[i].stride;
		L.it[i].stride = L.it[j].stride;
		L.it[j].stride = t;
	}
	*size = lay_size(&L);
	return L;
}

static int64_t at(const Layout *L, int64_t i)
{
	int64_t v[AX_COUNT];
	lay_apply_flat(L, i, v);
	return v[AX_M];
}

static void properties(void)
{
	uint64_t s = 0x9E3779B97F4A7C15ull;
	int groups = 0, slices = 0, refines = 0;
	for (int t = 0; t < 400; t++) {
		int64_t size;
		Layout L = random_layout(&s, &size);
		Layout C = L;
		lay_canonicalize(&C);
		bool same = true;
		for (int64_t i = 0; i < size; i++)
			same &= at(&L, i) == at(&C, i);
		CHECK(same, "canonicalize changed %s -> %s", fmt(&L), fmt(&C));
		/* group by a random factorisation of size */
		int64_t shape[4], rest = size;
		int nd = 0;
		while (rest > 1 && nd < 3) {
			int64_t f = 1 + (int64_t)(rnd(&s) % (uint64_t)rest);
			while (rest % f)
				f--;
			shape[nd++] = f;
			rest /= f;
		}
		shape[nd++] = rest;
		Layout G;
		int seps[8];
		if (lay_group(&L, shape, nd, &G, seps)) {
			groups++;
			same = true;
			for (int64_t i = 0; i < size; i++)
				same &= at(&L, i) == at(&G, i);
			CHECK(same, "group changed %s -> %s", fmt(&L), fmt(&G));
			/* slice dimension 0 at a random range; compare with apply */
			int64_t d0 = shape[0], inner = size / d0;
			int64_t b = (int64_t)(rnd(&s) % (uint64_t)d0), e = 1 + (int64_t)(rnd(&s) % (uint64_t)(d0 - b));
			Iter out[MAX_ITERS];
			int n;
			int64_t off[AX_COUNT];
			if (lay_slice_group(G.it + seps[0], seps[1] - seps[0], b, e, out, &n, off)) {
				slices++;
				Layout S = {0};
				S.n = n;
				memcpy(S.it, out, sizeof(Iter) * (size_t)n);
				for (int k = seps[1]; k < G.n; k++)
					S.it[S.n++] = G.it[k];
				same = true;
				for (int64_t i = 0; i < e * inner; i++)
					same &= at(&S, i) + off[AX_M] == at(&L, b * inner + i);
				CHECK(same, "slice [%lld:%lld] of %s", (long long)b, (long long)(b + e), fmt(&L));
			}
		}
		/* refine against another layout of the same size */
		Layout M = mk(1, (int64_t[]){size}, (int64_t[]){1}), ra, rb;
		if (lay_refine_pair(&L, &M, &ra, &rb)) {
			refines++;
			same = ra.n == rb.n;
			for (int64_t i = 0; i < size && same; i++)
				same &= at(&ra, i) == at(&L, i) && at(&rb, i) == i;
			CHECK(same, "refine of %s", fmt(&L));
		}
	}
	CHECK(groups > 100 && slices > 50 && refines > 100, "property coverage: %d groups, %d slices, %d refines",
	      groups, slices, refines);
}

/* replicas: the owner-thread ownership query, fusing, formatting and storage */
static void replica_cases(void)
{
	/* the row vector of a wgmma accumulator: rows (4 warps, 2 registers, 8
	 * lane quads), each row in the 4 lanes of its quad */
	Layout m = {0};
	m.n = 3;
	m.it[0] = (Iter){4, 1, AX_WID_IN_WG};
	m.it[1] = (Iter){2, 1, AX_M};
	m.it[2] = (Iter){8, 4, AX_LANEID};
	m.nrep = 1;
	m.rep[0] = (Iter){4, 1, AX_LANEID};
	CHECK(lay_replicas(&m) == 4, "4 copies");
	CHECK(!strcmp(fmt(&m), "S[(4, 2, 8):(1@wid_in_wg, 1, 4@laneid)] + R[(4):(1@laneid)]"), "got %s", fmt(&m));
	int64_t reg = -1;
	/* row 27 = warp 1, register 1, quad 3: lanes 12..15 of warp 1 */
	for (int64_t t = 0; t < 128; t++) {
		bool want = t >= 32 + 12 && t <= 32 + 15;
		CHECK(lay_holds(&m, 27, t, &reg) == want, "row 27 in thread %lld", (long long)t);
		if (want)
			CHECK(reg == 1, "register 1, got %lld", (long long)reg);
	}
	int64_t at[AX_COUNT] = {0};
	lay_add_replica(&m, 3, at);
	CHECK(at[AX_LANEID] == 3 && lay_thread_of(at) == 3, "replica 3 is lane + 3");
	Layout f = m;
	lay_fuse_threads(&f, SC_WARPGROUP);
	CHECK(f.rep[0].axis == AX_TID_IN_WG && f.rep[0].stride == 1, "replicas fuse with the shard");
	Layout g;
	int seps[3];
	CHECK(lay_group(&m, (int64_t[]){64, 1}, 2, &g, seps) && g.nrep == 1, "grouping keeps the replicas");
	lay_storage(&f);
	CHECK(f.nrep == 0 && f.n == 1, "storage: registers only");
	Layout other = m;
	other.rep[0].stride = 2;
	CHECK(lay_eq(&m, &m) && !lay_eq(&m, &other), "lay_eq compares replicas");
}

int main(void)
{
	canonical_cases();
	group_cases();
	storage_cases();
	slice_cases();
	swizzle_cases();
	properties();
	replica_cases();
	UNIT_END();
}
