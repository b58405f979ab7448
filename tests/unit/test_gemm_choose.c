/* tilepx_gemm_choose (src/api/gemm_choose.c) on the 20 shapes of issue 37, on
 * an H100's 132 SMs: what it picks and why (printed), each pick's arithmetic
 * recomputed here from its tile and window (tiles, rounds, efficiency), that
 * no window of the picked kernel has fewer rounds (all windows enumerated),
 * that the pick's modelled cost is never above the old fixed launch's (the
 * 512 x 128 kernel on P = 4, Q = 33), and the refusals. */
#include "unit.h"
#include "../../include/tilepx/tilepx.h"

typedef struct Shape {
	long long m, n, k;
	const char *kernel; /* the expected pick */
	int p, q;           /* and window */
} Shape;

/* squares 1024..8192, then M in {512, 2048, 8192} x (N, K) in {(10240, 8192),
 * (8192, 8192), (28672, 8192), (8192, 28672)} (8192 x 8192 x 8192 is a
 * square), then decode-like 128 x 8192 x 8192 */
static const Shape shapes[] = {
	/* 64 tiles of 128 x 128 fill 64 clusters in one round (128 CTAs of 64 x 128); 512 x 128 would be 16 tiles
	 * on 16; the same CTA tile as 128 x 64 without the cluster ties and comes first (8.85 us against 11.25) */
	{1024, 1024, 1024, "gemm_sm90_linear_128x64", 128, 1},
	/* from 2048^3 on, 512 x 128 and 256 x 256 have the same tiles and rounds: the linear 256 x 256 walk with
	 * TMA stores (N % 4 == 0; measured ahead of or even with the 512 x 128 walk) takes them (P = 2 x min(66,
	 * tiles): never more rounds than a window) */
	{2048, 2048, 2048, "gemm_sm90_linear_256x256", 128, 1},
	/* 3072: 144 tiles of 512 x 128 take 3 rounds on 66 clusters (48 of 66 busy in the last); 288 of 256 x 128
	 * take 5 on 60; 384 CTA tiles of 128 x 192 take 3 on 132 (2.91): 3 x 2 x 0.375 / 0.90 < 5 x 0.5 / 0.97 */
	{3072, 3072, 3072, "gemm_sm90_linear_128x192", 132, 1},
	{4096, 4096, 4096, "gemm_sm90_linear_256x256", 132, 1},
	/* 5120: 400 tiles of 512 x 128 are 6.06 rounds of 66 clusters (7); 320 of 512 x 160 are 4.85 (5) */
	{5120, 5120, 5120, "gemm_sm90_linear_512x160", 132, 1},
	{6144, 6144, 6144, "gemm_sm90_linear_256x256", 132, 1},
	{7168, 7168, 7168, "gemm_sm90_linear_256x256", 132, 1},
	{8192, 8192, 8192, "gemm_sm90_linear_256x256", 132, 1},
	/* M = 512: one band of 512 rows on P = 2 (the old P = 4 left half the CTAs without rows) */
	/* 512 x 10240: 64 tiles of 512 x 160 in one round on 64 clusters, against 3 rounds of 256 x 128 */
	{512, 10240, 8192, "gemm_sm90_linear_512x160", 128, 1},
	{512, 8192, 8192, "gemm_sm90_linear_256x256", 128, 1},
	/* 512 x 28672: 256 tiles of 256 x 224 in 4 rounds, the 256 x 128 walk's rounds x area at a better rate
	 * (measured 340.00 against 348.18 us on the H200) */
	{512, 28672, 8192, "gemm_sm90_linear_256x224", 132, 1},
	{512, 8192, 28672, "gemm_sm90_linear_256x256", 128, 1},
	{2048, 10240, 8192, "gemm_sm90_linear_256x256", 132, 1},
	{2048, 8192, 8192, "gemm_sm90_linear_256x256", 132, 1},
	/* 720 tiles of 512 x 160: 11 rounds (10.9) against 14 (13.6) of 512 x 128 */
	{2048, 28672, 8192, "gemm_sm90_linear_512x160", 132, 1},
	{2048, 8192, 28672, "gemm_sm90_linear_256x256", 132, 1},
	{8192, 10240, 8192, "gemm_sm90_linear_256x256", 132, 1},
	{8192, 28672, 8192, "gemm_sm90_linear_256x256", 132, 1},
	{8192, 8192, 28672, "gemm_sm90_linear_256x256", 132, 1},
	/* decode-like: the 256-row tiles would leave half of each cluster without rows; the 128 x 128 cluster
	 * walk beats the 128 x 64 CTA tiles at long K (measured 41.5 against 48.35 us on the H200) */
	{128, 8192, 8192, "gemm_sm90_walk_128x128", 2, 64},
};

static long long cdiv(long long a, long long b)
{
	return (a + b - 1) / b;
}

/* the fewest rounds of any window of bm x bn tiles on sms SMs: every (P, Q) */
static long long fewest_rounds(const Shape *s, int bm, int bn, int sms)
{
	long long best = -1;
	for (int p = 2; p <= sms; p += 2)
		for (int q = 1; p * q <= sms; q++) {
			long long r = cdiv(cdiv(s->n, bn), q) * cdiv(cdiv(s->m, bm), p / 2);
			if (best < 0 || r < best)
				best = r;
		}
	return best;
}

static void check_shape(const Shape *s)
{
	tilepx_gemm_choice c;
	int rc = tilepx_gemm_choose(s->m, s->n, s->k, "f16", "f32", 132, &c);
	CHECK(rc == 0, "%lld x %lld x %lld: %s", s->m, s->n, s->k, c.why);
	if (rc)
		return;
	printf("%5lld x %5lld x %5lld: %s\n", s->m, s->n, s->k, c.why);
	CHECK(!strcmp(c.kernel, s->kernel) && c.p == s->p && c.q == s->q, "%lld x %lld x %lld: picked %s P=%d Q=%d",
	      s->m, s->n, s->k, c.kernel, c.p, c.q);
	long long strips = cdiv(s->n, c.bn), bands = cdiv(s->m, c.bm);
	if (c.linear) { /* one walker (a cluster of 2 or a CTA) per SM pair or SM, no more than the tiles */
		long long walkers = c.cluster == 2 ? 66 : 132;
		long long clusters = strips * bands < walkers ? strips * bands : walkers;
		CHECK(c.p == c.cluster * clusters && c.q == 1 && (c.cluster == 2 || c.cluster == 1) && c.tiles == strips * bands &&
		          c.rounds == cdiv(c.tiles, clusters) && c.rounds <= fewest_rounds(s, c.bm, c.bn, 132),
		      "linear P=%d rounds %lld", c.p, c.rounds);
		CHECK(c.efficiency == (double)c.tiles / ((double)c.rounds * clusters), "efficiency %g", c.efficiency);
		CHECK(strstr(c.why, "linear walk on P=") != NULL, "why: %s", c.why);
		return;
	}
	CHECK(c.p % 2 == 0 && c.p >= 2 && c.q >= 1 && c.p * c.q <= 132 && c.cluster == 2, "window P=%d Q=%d", c.p, c.q);
	CHECK(c.tiles == strips * bands && c.rounds == cdiv(strips, c.q) * cdiv(bands, c.p / 2), "tiles %lld rounds %lld",
	      c.tiles, c.rounds);
	CHECK(c.rounds == fewest_rounds(s, c.bm, c.bn, 132), "rounds %lld", c.rounds);
	double eff = (double)c.tiles / ((double)c.rounds * (c.p / 2) * c.q);
	CHECK(eff > 0 && eff <= 1 && c.efficiency == eff, "efficiency %g", c.efficiency);
	/* the old launch: 512 x 128 tiles on P = 4, Q = 33, at the 512 x 128 kernel's speed (1) and epilogue (240) */
	double old = (double)(cdiv(cdiv(s->n, 128), 33) * cdiv(cdiv(s->m, 512), 2)) * 512 * 128 * (double)(s->k + 240);
	CHECK(c.cost <= old, "cost %g above the old launch's %g", c.cost, old);
	CHECK(strstr(c.why, c.kernel) == c.why && strstr(c.why, "; next "), "why: %s", c.why);
	CHECK(c.split == 1 && !c.zero_c, "a whole-K kernel: split %d, zero_c %d", c.split, c.zero_c);
}

/* few output tiles and a long K: split-K where a tile per cluster leaves SMs idle (C zeroed first), one of
 * the two forms, each the other's runner-up: 128 x 256 tiles in slices of 2048 on a Q x P window (strips
 * ctaid + i Q, slices ctaid_y + j P), or 128 x 128 tiles in slices of 4096 on a linear walk of (strip, slice)
 * pairs, P = min(132, pairs). For an even N the _n2 twins (red.global.add.v2.f32), measured 0.86-0.87 of
 * cuBLAS at 128 x 2048 x 32768 against the any-N kernels' 0.75-0.78, whose twins are then neither pick nor
 * runner-up. Each pick's arithmetic is recomputed here. */
static void check_split(long long m, long long n, long long k)
{
	tilepx_gemm_choice c;
	int rc = tilepx_gemm_choose(m, n, k, "f16", "f32", 132, &c);
	CHECK(rc == 0 && strstr(c.kernel, "gemm_sm90_splitk_") == c.kernel, "%lld x %lld x %lld: %s", m, n, k, c.why);
	if (rc)
		return;
	printf("%5lld x %5lld x %5lld: %s\n", m, n, k, c.why);
	int n2 = strstr(c.kernel, "_n2") != NULL;
	CHECK(n2 == (n % 2 == 0), "the _n2 twin exactly for an even N: %s", c.kernel);
	CHECK(c.cluster == 1 && c.zero_c == 1, "split-K: cluster %d zero_c %d", c.cluster, c.zero_c);
	long long bands = cdiv(m, 128);
	if (c.linear) {
		long long strips = cdiv(n, 128), slices = cdiv(k, 4096), pairs = strips * slices;
		long long p = pairs < 132 ? pairs : 132;
		CHECK(c.bn == 128 && c.split == slices && c.p == p && c.q == 1, "split %d P=%d Q=%d", c.split, c.p, c.q);
		CHECK(c.tiles == strips * bands && c.rounds == cdiv(pairs, p) * bands, "rounds %lld", c.rounds);
		CHECK(strstr(c.why, "slices (C zeroed first), linear walk on P=") != NULL, "why: %s", c.why);
		CHECK(strstr(c.why, n2 ? "; next gemm_sm90_splitk_128x256_n2 (128 x 256)"
		                       : "; next gemm_sm90_splitk_128x256 (128 x 256)") != NULL, "why: %s", c.why);
		return;
	}
	long long strips = cdiv(n, 256), slices = cdiv(k, 2048);
	CHECK(c.bn == 256 && c.split == slices && c.p >= 1 && c.q >= 1 && c.p * c.q <= 132, "split %d P=%d Q=%d",
	      c.split, c.p, c.q);
	CHECK(c.tiles == strips * bands && c.rounds == cdiv(strips, c.q) * cdiv(slices, c.p) * bands, "rounds %lld",
	      c.rounds);
	CHECK(strstr(c.why, n2 ? "; next gemm_sm90_splitk_linear_128x128_n2 (128 x 128)"
	                       : "; next gemm_sm90_splitk_linear_128x128 (128 x 128)") != NULL, "why: %s", c.why);
}

static void check_refusals(void)
{
	tilepx_gemm_choice c;
	CHECK(tilepx_gemm_choose(512, 512, 512, "f32", "f32", 132, &c) == -1 && strstr(c.why, "dtypes"), "%s", c.why);
	CHECK(tilepx_gemm_choose(512, 512, 516, "f16", "f32", 132, &c) == -1 && strstr(c.why, "multiple"), "%s", c.why);
	CHECK(tilepx_gemm_choose(512, 512, 520, "e4m3", "bf16", 132, &c) == -1, "e4m3 needs K %% 16: %s", c.why);
	CHECK(tilepx_gemm_choose(0, 512, 512, "f16", "f32", 132, &c) == -1, "M = 0: %s", c.why);
	CHECK(tilepx_gemm_choose(65537, 512, 512, "f16", "f32", 132, &c) == -1, "M above 65536: %s", c.why);
	CHECK(tilepx_gemm_choose(512, 512, 512, "f16", "f32", 1, &c) == -1 && strstr(c.why, "2 SMs"), "%s", c.why);
	CHECK(tilepx_gemm_choose(512, 512, 512, NULL, "f32", 132, &c) == -1, "no dtype");
}

/* the other dtypes pick within their own kernels; a smaller device gets a smaller window */
static void check_dtypes_and_devices(void)
{
	tilepx_gemm_choice c;
	CHECK(!tilepx_gemm_choose(4096, 4096, 4096, "bf16", "bf16", 132, &c) && strstr(c.tile, "bf16"), "%s", c.why);
	CHECK(!tilepx_gemm_choose(4096, 4096, 4096, "e4m3", "bf16", 132, &c) && strstr(c.tile, "fp8"), "%s", c.why);
	CHECK(!tilepx_gemm_choose(128, 8192, 8192, "bf16", "bf16", 132, &c) &&
	          !strcmp(c.kernel, "gemm_sm90_walk_bf16_128x128") && c.p == 2 && c.q == 64,
	      "bf16 decode-like: %s", c.why);
	/* one round either way; the TMA-store kernels (N % 8) measured fastest per MAC in bf16 on the H200, the
	 * 256 x 256 tile a little faster than the 512 x 128 ones (session 14: 0.980 against 0.979 here) */
	CHECK(!tilepx_gemm_choose(512, 8192, 8192, "bf16", "bf16", 132, &c) &&
	          !strcmp(c.kernel, "gemm_sm90_linear_bf16_256x256") && c.p == 128 && c.q == 1 && c.rounds == 1,
	      "bf16 prefill chunk: %s", c.why);
	/* N odd: not the TMA-store kernel; its any-N twin */
	CHECK(!tilepx_gemm_choose(512, 8191, 8192, "bf16", "bf16", 132, &c) &&
	          !strcmp(c.kernel, "gemm_sm90_linear_bf16_512x128") && c.p == 128 && c.q == 1,
	      "bf16 prefill chunk, N odd: %s", c.why);
	/* 4096^3: 256 tiles of 256 x 256 in 4 rounds; the 512 x 128 _ov walk ties on rounds at a lower speed;
	 * 256 x 224 needs 5 */
	CHECK(!tilepx_gemm_choose(4096, 4096, 4096, "bf16", "bf16", 132, &c) &&
	          !strcmp(c.kernel, "gemm_sm90_linear_bf16_256x256") && c.p == 132 && c.rounds == 4 &&
	          strstr(c.why, "; next gemm_sm90_linear_bf16_tmast_ov"),
	      "bf16 4096^3: %s", c.why);
	/* 512 x 28672: 256 tiles of 256 x 224 in 4 rounds of 66 clusters (0.97) against 180 of 512 x 160 in 3 (0.91)
	 * and 224 of 512 x 128 in 4 (0.85): measured 0.972, 0.923 and (2-D walk) 0.926 of cuBLAS on the H200 */
	CHECK(!tilepx_gemm_choose(512, 28672, 8192, "bf16", "bf16", 132, &c) &&
	          !strcmp(c.kernel, "gemm_sm90_linear_bf16_256x224") && c.p == 132 && c.rounds == 4 && c.tiles == 256,
	      "bf16 512 x 28672 x 8192: %s", c.why);
	/* and not where its tile count rounds worse: 2048 x 28672 (16 rounds against 14 of 512 x 128), 5120^3 */
	CHECK(!tilepx_gemm_choose(2048, 28672, 8192, "bf16", "bf16", 132, &c) &&
	          strcmp(c.kernel, "gemm_sm90_linear_bf16_256x224"), "bf16 2048 x 28672 x 8192: %s", c.why);
	CHECK(!tilepx_gemm_choose(5120, 5120, 5120, "bf16", "bf16", 132, &c) &&
	          strcmp(c.kernel, "gemm_sm90_linear_bf16_256x224"), "bf16 5120^3: %s", c.why);
	/* the last round's tiles, as in f16: 5 rounds of 512 x 160 against 7 of 512 x 128 */
	CHECK(!tilepx_gemm_choose(5120, 5120, 5120, "bf16", "bf16", 132, &c) &&
	          !strcmp(c.kernel, "gemm_sm90_linear_bf16_512x160") && c.p == 132 && c.rounds == 5,
	      "bf16 5120^3: %s", c.why);
	/* 3072^3: 384 CTA tiles of 128 x 192 in 3 rounds of 132 (2.91) against 144 of 512 x 128 in 3 of 66 (2.18) */
	CHECK(!tilepx_gemm_choose(3072, 3072, 3072, "bf16", "bf16", 132, &c) &&
	          !strcmp(c.kernel, "gemm_sm90_linear_bf16_128x192") && c.p == 132 && c.rounds == 3,
	      "bf16 3072^3: %s", c.why);
	/* 1024^3: 128 CTA tiles of 128 x 64 in one round, the 128 x 128 walk's 64 tiles slower (f16: 8.62 us
	 * against 11.25) */
	CHECK(!tilepx_gemm_choose(1024, 1024, 1024, "bf16", "bf16", 132, &c) &&
	          !strcmp(c.kernel, "gemm_sm90_linear_bf16_128x64") && c.p == 128 && c.rounds == 1,
	      "bf16 1024^3: %s", c.why);
	CHECK(!tilepx_gemm_choose(5120, 5124, 5120, "bf16", "bf16", 132, &c) &&
	          strcmp(c.kernel, "gemm_sm90_linear_bf16_512x160") && strcmp(c.kernel, "gemm_sm90_linear_bf16_tmast") &&
	          strcmp(c.kernel, "gemm_sm90_linear_bf16_tmast_ov") && strcmp(c.kernel, "gemm_sm90_linear_bf16_256x256") &&
	          strcmp(c.kernel, "gemm_sm90_linear_bf16_256x224"),
	      "bf16, N %% 8 != 0: %s", c.why);
	CHECK(!tilepx_gemm_choose(4096, 4096, 4096, "f16", "f32", 114, &c) && c.p * c.q <= 114, "%s", c.why);
	/* three bands of 128 rows: 120 tiles of 128 x 256 on 120 CTAs (one round, no cluster) against 4 rounds of
	 * the 128 x 128 cluster tiles */
	CHECK(!tilepx_gemm_choose(384, 10240, 4096, "f16", "f32", 132, &c) &&
	          !strcmp(c.kernel, "gemm_sm90_linear_128x256") && c.linear && c.cluster == 1 && c.p == 120 &&
	          c.q == 1 && c.rounds == 1 && strstr(c.why, "(120 CTAs)"),
	      "one CTA per tile: %s", c.why);
	CHECK(!tilepx_gemm_choose(384, 10240, 4096, "bf16", "bf16", 132, &c) &&
	          !strcmp(c.kernel, "gemm_sm90_linear_bf16_128x256") && c.p == 120,
	      "bf16, one CTA per tile: %s", c.why);
	CHECK(!tilepx_gemm_choose(1, 1, 8, "f16", "f32", 2, &c) && c.p <= 2 && c.q == 1 && c.rounds == 1, "%s", c.why);
}

/* the 256 x 256 TMA-store walk needs N % 4 == 0 (16-byte rows of f32 C); otherwise its tile counts go to the
 * linear 512 x 128 walk (any N), with 256 x 256 neither pick nor runner-up */
static void check_n_multiple(void)
{
	tilepx_gemm_choice c;
	int rc = tilepx_gemm_choose(4096, 4093, 4096, "f16", "f32", 132, &c);
	CHECK(rc == 0 && !strcmp(c.kernel, "gemm_sm90_linear_512x128") && c.p == 132 && c.rounds == 4,
	      "4096 x 4093 x 4096: %s", c.why);
	CHECK(strstr(c.why, "gemm_sm90_linear_256x256") == NULL, "why: %s", c.why);
	rc = tilepx_gemm_choose(4096, 4092, 4096, "f16", "f32", 132, &c);
	CHECK(rc == 0 && !strcmp(c.kernel, "gemm_sm90_linear_256x256") && c.rounds == 4 &&
	          strstr(c.why, "; next gemm_sm90_linear_512x128"),
	      "4096 x 4092 x 4096: %s", c.why);
}

int main(void)
{
	for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
		check_shape(&shapes[i]);
	check_split(128, 2048, 32768);
	check_split(256, 1024, 65536);
	check_split(128, 4096, 16384);
	check_split(128, 2047, 32768);
	check_n_multiple();
	check_refusals();
	check_dtypes_and_devices();
	UNIT_END();
}
