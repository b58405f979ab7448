/* tilepx_gemm_choose: the GEMM family's heuristic (issue 37). Every kernel
 * of the family is a persistent 2-D walk (bench/gemm_sm90_walk_*.tile): a
 * window of Q x P CTAs, clusters of 2 along y, slides over the cdiv(N, BN)
 * strips and cdiv(M, BM) bands of C, so the time is set by the cluster that
 * walks the most tiles, rounds = cdiv(strips, Q) * cdiv(bands, P / 2). The
 * model: cost = rounds * BM * BN * (K + epilogue) / speed, where speed is the
 * kernel's per-MAC rate on full tiles relative to the fastest (measured on an
 * H100, refitted from the H200 sweeps where those measured the kernel: each
 * entry names its source; docs/benchmarks.md) and the epilogue, not overlapped with the next
 * tile's mainloop, is its cost in K steps (8192 x 8192 x 1024 ran at 0.81 of
 * 4096^3: ~240 for an f32 C). The cheapest kernel and window win; on a tie
 * the earlier kernel in the table, then the window with the fewest clusters,
 * then the fewest rows of A and B in flight (L2 reuse).
 *
 * A split-K kernel (k_slice > 0) walks (column strip, K slice) pairs on a
 * window of Q x P CTAs (no cluster), every band of C for each pair: rounds =
 * cdiv(strips, Q) * cdiv(slices, P) * bands, each of k_slice K steps (the
 * last slice's are zero-filled past K, so a slice costs k_slice whatever K
 * is) plus the epilogue, a CTA's tile counted twice (the others' costs are
 * of a cluster's tile, two CTAs'); C must be zeroed before each launch, a
 * memset of M x N f32 at ~3 TB/s counted as 3.5 M N MACs of one SM (350
 * TMAC/s over 132 SMs), and each slice's red.add of M x N words as
 * RED_MACS_PER_WORD each. A split-K kernel on a linear walk (k_slice and
 * linear) takes the (strip, slice) pairs t = ctaid, ctaid + P, ... on P =
 * min(SMs, pairs) CTAs: rounds = cdiv(pairs, P) * bands.
 *
 * A linear tile walk (linear = 1, bench/gemm_sm90_linear_*.tile: `repeat
 * cdiv(M, BM) * cdiv(N, BN) as t across ctaid_y tiles ...`) has no window:
 * it is launched with one cluster per SM pair, P = 2 * min(floor(SMs / 2),
 * tiles) (no Q), each cluster walking every (P / 2)-th tile, so rounds =
 * cdiv(tiles, P / 2), never more than the best window's; the 128 x 256
 * walk has no cluster: P = min(SMs, tiles) CTAs, its tile costing twice a
 * cluster's. It comes first in
 * the table, so it wins the ties with its 2-D walk (same tile, same speed
 * until measured apart). The 128 x 192 and 512 x 160 tiles are there for
 * the tile counts that leave a last round mostly idle (3072^3, 5120^3,
 * 512 x 10240).
 *
 * A kernel with `assume N % n == 0` (n_multiple: the bf16 TMA-store walk,
 * the split-K _n2 twins whose red.add is .v2) is a candidate only for such
 * N; then its any-N twin, the next entry with the same tile and walk, is
 * skipped, so that the runner-up named in `why` is another tile or walk. */
#include <stdio.h>
#include <string.h>

#include "../include/tilepx/tilepx.h"

/* a red.add of one f32 word, in MACs of one cluster: atomics at ~half the rate of zeroing C (3.5 a word);
 * an estimate from the H200's split-K runs (docs/design.md, "Split-K's speed"), not a measurement of it */
#define RED_MACS_PER_WORD 7.0

typedef struct GemmKernel {
	const char *tile, *kernel, *in, *out;
	int bm, bn;
	int k_multiple; /* the kernel's `assume K % k_multiple == 0` */
	double speed;   /* per-MAC rate on full tiles, relative to the fastest kernel */
	int epilogue_k; /* the epilogue's cost in K steps of the mainloop */
	const char *speed_source;
	int k_slice;    /* split-K: each CTA sums slices of this many K (0: the whole K, a cluster of 2 per tile) */
	int linear;     /* a linear tile walk, launched with P and no Q: the CTAs of each walker (2: a cluster per SM
	                 * pair, P = 2 x walkers; 1: a CTA per SM, P = walkers); 0: a 2-D window */
	int n_multiple; /* the kernel's `assume N % n_multiple == 0` (0: any N) */
} GemmKernel;

/* the family, in order of preference on a tie. Speeds refitted from the H200 sweeps of 2026-11-28
 * (bench/results/gpu-2026-11-28-sweep-h200-results.txt, ...-session12-sweep-linear-h200.txt: each pick's
 * rounds x BM x BN x (K + E) per microsecond against the 512 x 128 kernel's, ~5.9e6 at 4096^3) */
static const GemmKernel family[] = {
	/* f16: the bf16 256 x 256 walk's twin with f32 TMA stores (N % 4): the 512 x 128 walk's tile counts, ahead
	 * of it or even at every shape timed side by side */
	{"bench/gemm_sm90_linear_256x256.tile", "gemm_sm90_linear_256x256", "f16", "f32", 256, 256, 8, 1.01, 240,
	 "measured (H200, session 15, one call): 0.987, 0.973 (fastest of 30), 0.997, 0.992, 0.983 of cuBLAS at "
	 "4096^3, 6144^3, 7168^3, 2048 x 8192 x 8192, 512 x 8192 x 8192 against the 512 x 128 walk's 0.976, 0.963, "
	 "0.992, 0.985, 0.982; even at 2048^3 and 8192^3", 0, 2, 4},
	{"bench/gemm_sm90_linear_512x128.tile", "gemm_sm90_linear_512x128", "f16", "f32", 512, 128, 8, 1.00, 240,
	 "measured (H200): 712 TFLOPS at 4096^3, the 2-D walk's rate", 0, 2, 0},
	{"bench/gemm_sm90_walk_512x128.tile", "gemm_sm90_walk_512x128", "f16", "f32", 512, 128, 8, 1.00, 240,
	 "measured: 696-707 TFLOPS at 4096^3", 0, 0, 0},
	{"bench/gemm_sm90_walk_st.tile", "gemm_sm90_cluster_st", "f16", "f32", 256, 256, 8, 1.00, 240,
	 "measured: 702-718 TFLOPS at 4096^3", 0, 0, 0},
	/* 256 x 224 cluster tiles for 512 x 28672 (256 tiles in 4 rounds: the 256 x 128 walk's rounds x area); at
	 * 5120^3 (7 rounds of 256 x 224 against 5 of 512 x 160) it measured 0.985 against 0.989, so its rate keeps it
	 * under 512 x 160 there */
	{"bench/gemm_sm90_linear_256x224.tile", "gemm_sm90_linear_256x224", "f16", "f32", 256, 224, 8, 0.965, 240,
	 "fitted (H200, session 14): 340.00 us at 512 x 28672 x 8192 (0.960 of cuBLAS; the 256 x 128 walk 348.18, "
	 "0.936-0.943, two calls)", 0, 2, 0},
	{"bench/gemm_sm90_walk_256x128.tile", "gemm_sm90_walk_256x128", "f16", "f32", 256, 128, 8, 0.955, 240,
	 "measured (H200): 0.97-0.98 of the 512 x 128 kernel's rate at 3072^3 and 512 x 10240 x 8192, 0.94 at 512 x "
	 "28672 x 8192 (348.18 us): between the two", 0, 0, 0},
	/* the 128 x 128 walk's CTA tile (64 x 128) as a 128 x 64 CTA tile without the cluster: first on their ties */
	{"bench/gemm_sm90_linear_128x64.tile", "gemm_sm90_linear_128x64", "f16", "f32", 128, 64, 8, 0.55, 120,
	 "fitted (H200): 8.62 us at 1024^3 (the 128 x 128 walk 11.25), 48.35 us at 128 x 8192 x 8192 (the walk "
	 "~41.5): its CTA runs long K at 0.86 of the walk's rate, its epilogue is half a 128 x 128 one", 0, 1, 0},
	{"bench/gemm_sm90_walk_128x128.tile", "gemm_sm90_walk_128x128", "f16", "f32", 128, 128, 8, 0.60, 240,
	 "measured (H200): 0.57 of the 512 x 128 kernel's rate at 128 x 8192 x 8192 (one round, the fill unhidden)",
	 0, 0, 0},
	{"bench/gemm_sm90_linear_128x256.tile", "gemm_sm90_linear_128x256", "f16", "f32", 128, 256, 8, 0.90, 240,
	 "estimated: the 256 x 256 kernel's CTA tile without multicast, not yet measured", 0, 1, 0},
	/* finer tiles for the shapes whose 512 x 128 / 256 x 128 rounds end with a mostly idle one */
	{"bench/gemm_sm90_linear_128x192.tile", "gemm_sm90_linear_128x192", "f16", "f32", 128, 192, 8, 0.98, 240,
	 "measured (H200): 0.98 at 3072^3 (84.1 us), 1.00 at 8192^3 (674 TFLOPS) of the 512 x 128 kernel's rate", 0,
	 1, 0},
	{"bench/gemm_sm90_linear_512x160.tile", "gemm_sm90_linear_512x160", "f16", "f32", 512, 160, 8, 1.00, 300,
	 "measured (H200): 1.00 of the 512 x 128 kernel's rate at 5120^3 (366.3 us) and 512 x 10240 x 8192", 0, 2, 0},
	/* split-K on a linear walk of (strip, slice) pairs: 128 x 128 tiles, slices of 4096, P = the SMs; the _n2
	 * twin (N even) adds pairs with red.global.add.v2.f32 */
	{"bench/gemm_sm90_splitk_linear_128x128_n2.tile", "gemm_sm90_splitk_linear_128x128_n2", "f16", "f32", 128,
	 128, 8, 0.55, 480, "fitted (H200): 49.1 us at 128 x 2048 x 32768 (0.86 of cuBLAS)", 4096, 1, 2},
	{"bench/gemm_sm90_splitk_linear_128x128.tile", "gemm_sm90_splitk_linear_128x128", "f16", "f32", 128, 128, 8,
	 0.49, 480, "fitted (H200): 54.4 us at 128 x 2048 x 32768 (0.78 of cuBLAS)", 4096, 1, 0},
	/* split-K (C += A B by red.add into a zeroed C): CTAs of one 128 x 256 tile, no multicast */
	{"bench/gemm_sm90_splitk_128x256_n2.tile", "gemm_sm90_splitk_128x256_n2", "f16", "f32", 128, 256, 8, 0.65, 480,
	 "fitted (H200): 48.6 us at 128 x 2048 x 32768 (0.87 of cuBLAS; the any-N kernel 56.7)", 2048, 0, 2},
	{"bench/gemm_sm90_splitk_128x256.tile", "gemm_sm90_splitk_128x256", "f16", "f32", 128, 256, 8, 0.55, 480,
	 "fitted (H200): 0.54-0.55 reproduces 56-57 us at 128 x 2048 x 32768 and 128 x 8192 x 8192 (4 x 32), with "
	 "the zeroing and red.add terms", 2048, 0, 0},
	/* bf16: 128 x 192 and 512 x 160 for the tile counts that leave a last round mostly idle (N % 8: 16-byte
	 * stores of C) */
	{"bench/gemm_sm90_linear_bf16_128x192.tile", "gemm_sm90_linear_bf16_128x192", "bf16", "bf16", 128, 192, 8, 0.90,
	 120, "estimated below the f16 128 x 192 kernel's 0.98 (16-byte stores, no TMA); not yet measured", 0, 1, 8},
	{"bench/gemm_sm90_linear_bf16_512x160.tile", "gemm_sm90_linear_bf16_512x160", "bf16", "bf16", 512, 160, 8, 0.95,
	 150, "estimated below the f16 512 x 160 kernel's 1.00 (16-byte stores, no TMA); not yet measured", 0, 2, 8},
	/* bf16: 256 x 224 cluster tiles for 512 x 28672 (256 tiles: 4 rounds at 0.97, against 512 x 160's 3 at 0.91);
	 * at the squares its tile counts round worse (4096^3: 5 rounds, measured 0.896 of cuBLAS) */
	{"bench/gemm_sm90_linear_bf16_256x224.tile", "gemm_sm90_linear_bf16_256x224", "bf16", "bf16", 256, 224, 8,
	 0.914, 120, "fitted (H200, session 14): 314.66 us at 512 x 28672 x 8192 against 512 x 160's 325.74 in the same "
	 "call (0.972 and 0.923 of cuBLAS)", 0, 2, 8},
	/* bf16: the TMA-store epilogues (N % 8) measured fastest on the H200: the 256 x 256 tile (one m64n256
	 * accumulator per warpgroup) first, then the 512 x 128 walk's _ov form (D0 and D1 in two wgmma groups,
	 * D0's epilogue under D1's last wgmma), then the plain 512 x 128 walk; all on the same tile counts at the
	 * squares and the LLM shapes but 512 x 28672 */
	{"bench/gemm_sm90_linear_bf16_256x256.tile", "gemm_sm90_linear_bf16_256x256", "bf16", "bf16", 256, 256, 8,
	 1.015, 120, "measured (H200, session 14, two calls): 0.986, 0.985/0.976 and 1.028/1.024 of cuBLAS at 4096^3, "
	 "6144^3 and 8192^3, 0.941 at 2048^3, 0.980 at 512 x 8192 x 8192; the _ov walk 0.986, 0.999/0.972, 1.000, "
	 "0.936, 0.979", 0, 2, 8},
	{"bench/gemm_sm90_linear_bf16_tmast_ov.tile", "gemm_sm90_linear_bf16_tmast_ov", "bf16", "bf16", 512, 128, 8,
	 1.01, 120, "measured (H200, session 14): 0.986 and 0.999 of cuBLAS at 4096^3 and 6144^3 against the "
	 "TMA-store kernel's 0.982 and 0.977 in the same call", 0, 2, 8},
	{"bench/gemm_sm90_linear_bf16_tmast.tile", "gemm_sm90_linear_bf16_tmast", "bf16", "bf16", 512, 128, 8, 1.00,
	 120, "measured (H200): 775 TFLOPS at 4096^3 (0.98 of cuBLAS), 1.02 of cuBLAS at 8192^3", 0, 2, 8},
	{"bench/gemm_sm90_linear_bf16_512x128.tile", "gemm_sm90_linear_bf16_512x128", "bf16", "bf16", 512, 128, 8,
	 0.90, 120, "as gemm_sm90_walk_bf16_512x128 until measured", 0, 2, 0},
	{"bench/gemm_sm90_linear_bf16_128x256.tile", "gemm_sm90_linear_bf16_128x256", "bf16", "bf16", 128, 256, 8,
	 0.85, 120, "estimated: the 256 x 256 kernel's CTA tile without multicast, not yet measured", 0, 1, 0},
	{"bench/gemm_sm90_walk_bf16_512x128.tile", "gemm_sm90_walk_bf16_512x128", "bf16", "bf16", 512, 128, 8, 0.90,
	 120, "measured (H200): 612 and 656 TFLOPS at 4096^3 and 8192^3, 0.79-0.96 of the TMA-store kernel's", 0, 0, 0},
	{"bench/gemm_sm90_walk_bf16_any.tile", "gemm_sm90_walk_bf16_any", "bf16", "bf16", 256, 256, 8, 0.85, 120,
	 "measured (H200, through Python): 450 and 659 TFLOPS at 4096^3 and 8192^3", 0, 0, 0},
	/* bf16 twin of the f16 128 x 64 walk (1024^3: 128 CTA tiles); speed and epilogue scaled from the f16 fit,
	 * so the 128 x 128 walk keeps the long-K shapes (128 x 8192 x 8192) */
	{"bench/gemm_sm90_linear_bf16_128x64.tile", "gemm_sm90_linear_bf16_128x64", "bf16", "bf16", 128, 64, 8, 0.57,
	 60, "as the f16 128 x 64 kernel's fit (0.55, half its epilogue for bf16's); not yet measured", 0, 1, 0},
	{"bench/gemm_sm90_walk_bf16_128x128.tile", "gemm_sm90_walk_bf16_128x128", "bf16", "bf16", 128, 128, 8, 0.60,
	 120, "as the f16 128 x 128 kernel's measured rate", 0, 0, 0},
	{"bench/gemm_sm90_walk_fp8_wgbar.tile", "gemm_sm90_walk_fp8_wgbar", "e4m3", "bf16", 256, 256, 16, 1.00, 240,
	 "measured: 1443 TFLOPS at 4096^3", 0, 0, 0},
};

typedef struct Window {
	int p, q;
	long long rounds, clusters, rows;
} Window;

static long long cdiv(long long a, long long b)
{
	return (a + b - 1) / b;
}

/* a better window: fewer rounds, then fewer clusters, then fewer rows in flight */
static int window_better(const Window *a, const Window *b)
{
	if (a->rounds != b->rounds)
		return a->rounds < b->rounds;
	if (a->clusters != b->clusters)
		return a->clusters < b->clusters;
	return a->rows < b->rows;
}

/* the window over strips x bands tiles with the fewest rounds on sm_count SMs */
static Window best_window(long long strips, long long bands, int bm, int bn, int sm_count)
{
	Window best = {0, 0, 0, 0, 0};
	for (int p = 2; p <= sm_count && p <= 1024; p += 2) {
		for (int q = 1; q <= sm_count / p && q <= 1024; q++) {
			long long used_q = q < strips ? q : strips, used_c = p / 2 < bands ? p / 2 : bands;
			Window w = {p, q, cdiv(strips, q) * cdiv(bands, p / 2), used_q * used_c,
			            (long long)q * bn + (long long)(p / 2) * bm};
			if (!best.p || window_better(&w, &best))
				best = w;
		}
	}
	return best;
}

/* split-K: the window over strips x slices pairs (every band each) with the fewest rounds */
static Window best_split_window(long long strips, long long slices, long long bands, int bn, int sm_count)
{
	Window best = {0, 0, 0, 0, 0};
	for (int p = 1; p <= sm_count && p <= 1024; p++) {
		for (int q = 1; q <= sm_count / p && q <= 1024; q++) {
			long long used = (q < strips ? q : strips) * (p < slices ? p : slices);
			Window w = {p, q, cdiv(strips, q) * cdiv(slices, p) * bands, used, (long long)q * bn};
			if (!best.p || window_better(&w, &best))
				best = w;
		}
	}
	return best;
}

/* split-K on a linear walk over (strip, slice) pairs: min(SMs, pairs) CTAs, each every P-th pair, every band */
static Window linear_split_window(long long pairs, long long bands, int sm_count)
{
	long long p = sm_count < 1024 ? sm_count : 1024;
	if (p > pairs)
		p = pairs;
	Window w = {(int)p, 1, cdiv(pairs, p) * bands, p, 0};
	return w;
}

static int dtypes_match(const GemmKernel *k, const char *in, const char *out)
{
	return in && out && !strcmp(k->in, in) && !strcmp(k->out, out);
}

/* a linear walk: one walker (a cluster of k->linear CTAs) per k->linear SMs, no more than the tiles,
 * dealing out every tile; a CTA's tile costs twice a cluster's (the costs are in cluster time) */
static void fill_linear(const GemmKernel *k, long long M, long long N, long long K, int sm_count,
                        tilepx_gemm_choice *c)
{
	long long tiles = cdiv(N, k->bn) * cdiv(M, k->bm), walkers = sm_count / k->linear;
	if (walkers > 1024 / k->linear) /* the kernels' P <= 1024 */
		walkers = 1024 / k->linear;
	if (walkers > tiles)
		walkers = tiles;
	memset(c, 0, sizeof *c);
	c->tile = k->tile;
	c->kernel = k->kernel;
	c->bm = k->bm;
	c->bn = k->bn;
	c->cluster = k->linear;
	c->p = (int)(k->linear * walkers);
	c->q = 1;
	c->linear = 1;
	c->tiles = tiles;
	c->rounds = cdiv(tiles, walkers);
	c->split = 1;
	c->efficiency = (double)tiles / ((double)c->rounds * walkers);
	c->cost = (2.0 / k->linear) * (double)c->rounds * k->bm * k->bn * (double)(K + k->epilogue_k) / k->speed;
}

static void fill_choice(const GemmKernel *k, long long M, long long N, long long K, int sm_count,
                        tilepx_gemm_choice *c)
{
	if (k->linear && !k->k_slice) {
		fill_linear(k, M, N, K, sm_count, c);
		return;
	}
	long long strips = cdiv(N, k->bn), bands = cdiv(M, k->bm), slices = k->k_slice ? cdiv(K, k->k_slice) : 1;
	Window w = k->linear    ? linear_split_window(strips * slices, bands, sm_count)
	           : k->k_slice ? best_split_window(strips, slices, bands, k->bn, sm_count)
	                        : best_window(strips, bands, k->bm, k->bn, sm_count);
	memset(c, 0, sizeof *c);
	c->tile = k->tile;
	c->kernel = k->kernel;
	c->bm = k->bm;
	c->bn = k->bn;
	c->cluster = k->k_slice ? 1 : 2;
	c->p = w.p;
	c->q = w.q;
	c->tiles = strips * bands;
	c->rounds = w.rounds;
	c->split = (int)slices;
	c->zero_c = k->k_slice != 0;
	c->linear = k->linear != 0;
	if (k->k_slice) {
		long long slots = k->linear ? cdiv(strips * slices, w.p) * w.p : cdiv(strips, w.q) * cdiv(slices, w.p) * w.p * w.q;
		c->efficiency = (double)(strips * slices) / (double)slots;
		/* x 2: one CTA's tile against the others' cluster tiles, in the same time units; then zeroing C
		 * and the red.add words, M x N per slice */
		c->cost = 2.0 * (double)w.rounds * k->bm * k->bn * (double)(k->k_slice + k->epilogue_k) / k->speed +
		          3.5 * (double)M * (double)N + RED_MACS_PER_WORD * (double)M * (double)N * (double)slices;
		return;
	}
	c->efficiency = (double)c->tiles / ((double)w.rounds * (w.p / 2) * w.q);
	c->cost = (double)w.rounds * k->bm * k->bn * (double)(K + k->epilogue_k) / k->speed;
}

/* an any-N kernel whose twin, the entry before it (the same tile and walk with an `assume N % n`), takes this N:
 * the twin is the better one (wider stores or atomics), so the any-N one is neither the pick nor the runner-up */
static int twin_applies(size_t i, long long N)
{
	const GemmKernel *k = &family[i], *t = i ? &family[i - 1] : NULL;
	return !k->n_multiple && t && t->n_multiple && N % t->n_multiple == 0 && t->bm == k->bm && t->bn == k->bn &&
	       t->k_slice == k->k_slice && t->linear == k->linear && !strcmp(t->in, k->in) && !strcmp(t->out, k->out);
}

static int describe(const tilepx_gemm_choice *c, char *buf, size_t n)
{
	char split[64] = "";
	if (c->split > 1 || c->zero_c)
		snprintf(split, sizeof split, ", K in %d slice%s (C zeroed first)", c->split, c->split == 1 ? "" : "s");
	if (c->linear)
		return snprintf(buf, n, "%s (%d x %d): %lld tiles%s, linear walk on P=%d (%d %s), %lld round%s, "
		                "efficiency %.2f, cost %.3g", c->kernel, c->bm, c->bn, c->tiles, split, c->p, c->p / c->cluster,
		                c->cluster > 1 ? "clusters" : "CTAs", c->rounds, c->rounds == 1 ? "" : "s", c->efficiency,
		                c->cost);
	return snprintf(buf, n, "%s (%d x %d): %lld tiles%s, window P=%d Q=%d, %lld round%s, efficiency %.2f, cost %.3g",
	                c->kernel, c->bm, c->bn, c->tiles, split, c->p, c->q, c->rounds, c->rounds == 1 ? "" : "s",
	                c->efficiency, c->cost);
}

static int refuse(tilepx_gemm_choice *out, const char *why)
{
	memset(out, 0, sizeof *out);
	snprintf(out->why, sizeof out->why, "%s", why);
	return -1;
}

int tilepx_gemm_choose(long long M, long long N, long long K, const char *dtype_in, const char *dtype_out,
                       int sm_count, tilepx_gemm_choice *out)
{
	if (M < 1 || N < 1 || K < 1 || M > 65536 || N > 65536 || K > 65536)
		return refuse(out, "M, N and K must be 1..65536 (the family's facts)");
	if (sm_count < 2)
		return refuse(out, "the family needs at least 2 SMs (one cluster of 2 CTAs)");
	tilepx_gemm_choice best, second;
	int found = 0, matched = 0;
	for (size_t i = 0; i < sizeof family / sizeof family[0]; i++) {
		const GemmKernel *k = &family[i];
		if (!dtypes_match(k, dtype_in, dtype_out))
			continue;
		matched = 1;
		if (K % k->k_multiple || (k->n_multiple && N % k->n_multiple) || twin_applies(i, N))
			continue;
		tilepx_gemm_choice c;
		fill_choice(k, M, N, K, sm_count, &c);
		if (!found) {
			best = c;
			found = 1;
		} else if (c.cost < best.cost) {
			second = best;
			best = c;
			found = 2;
		} else if (found == 1 || c.cost < second.cost) {
			second = c;
			found = 2;
		}
	}
	if (!matched)
		return refuse(out, "no kernel of the family takes these dtypes (f16:f32, bf16:bf16, e4m3:bf16)");
	if (!found)
		return refuse(out, "K is not a multiple of the family's K step (8; 16 for e4m3)");
	*out = best;
	int len = describe(&best, out->why, sizeof out->why);
	if (found == 2 && len > 0 && (size_t)len < sizeof out->why) {
		char rest[200];
		describe(&second, rest, sizeof rest);
		snprintf(out->why + len, sizeof out->why - (size_t)len, "; next %s", rest);
	}
	return 0;
}
