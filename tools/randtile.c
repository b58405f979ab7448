/* randtile SEED N DIR: write N random valid .tile programs (reproducible
 * from SEED) covering shapes, dtypes, layouts (row/column-major, padded,
 * swizzled), scopes, grids, repeat loops, registers and targets, TMA and
 * multicast TMA in clusters. The test
 * suite emits each one and assembles it with ptxas. 'randtile --reduce'
 * writes reductions of random register layouts instead (run in ptxemu
 * against the reference).
 *
 * Statements are written from their rows of src/stmt.def (keyword, scope
 * prefix, the target capability they need), dtypes from the compiler's
 * table: a program names no keyword the compiler does not know, and a
 * statement the target cannot run stops the generator. */
#include "tilepx.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t state;
static uint64_t next(void)
{
	state ^= state << 13;
	state ^= state >> 7;
	state ^= state << 17;
	return state;
}
static int pick(int n) { return (int)(next() % (uint64_t)n); }
static int chance(int pct) { return pick(100) < pct; }
/* a loop control from a size already drawn, so the random stream (and every
 * other program of a seed) stays as it was */
static const char *unroll_option(int grid) { return grid % 3 == 0 ? " unroll 2" : grid % 3 == 1 ? " unroll" : ""; }

/* the dtypes a program picks from, by index (the order fixes what a seed writes) */
static const DType dtype_pick[] = {DT_I8,  DT_U8,  DT_E4M3, DT_E5M2, DT_I16, DT_U16, DT_F16, DT_BF16,
                                   DT_I32, DT_U32, DT_F32,  DT_TF32, DT_I64, DT_U64, DT_F64};
static const char *dtypes[15];
static int dbytes[15];

/* one statement on its own line: indent, the scope (only for an SF_SCOPED
 * row), the keyword from stmt.def, then the operands (fmt NULL: none);
 * a statement the target lacks the capability for is the generator's bug */
static void stmt(FILE *f, const Target *t, const char *indent, const char *scope, StmtKind k, const char *fmt, ...)
{
	const StmtInfo *si = &stmt_info[k];
	if (!target_has(t, si->cap) || !(si->flags & SF_SCOPED) != !scope) {
		fprintf(stderr, "randtile: '%s' %s on %s\n", si->keyword,
		        !target_has(t, si->cap) ? "cannot run" : scope ? "takes no scope" : "needs a scope", t->name);
		exit(1);
	}
	fprintf(f, "%s%s%s%s", indent, scope ? scope : "", scope ? " " : "", si->keyword);
	if (fmt) {
		va_list ap;
		va_start(ap, fmt);
		fputc(' ', f);
		vfprintf(f, fmt, ap);
		va_end(ap);
	}
	fputc('\n', f);
}

/* the copy into the shared tile (operands "DST, SRC"), by cp.async (commit,
 * wait for all) when async, then a sync */
static void copy_in(FILE *f, const Target *t, const char *scope, int async, const char *operands)
{
	if (async) {
		stmt(f, t, "", scope, ST_COPY_ASYNC, "%s", operands);
		stmt(f, t, "", NULL, ST_CPA_COMMIT, NULL);
		stmt(f, t, "", NULL, ST_CPA_WAIT, "0");
	} else {
		stmt(f, t, "", scope, ST_COPY, "%s", operands);
	}
	stmt(f, t, "", NULL, ST_SYNC, NULL);
}

/* the shared tile S: row-major (kind 0), column-major (1), padded rows (2,
 * *pad extra columns) or swizzled (3, *P its P); returns the kind */
static int shared_tile(FILE *f, int dt, int R, int C, int *pad, int *P)
{
	int kind = pick(4), W = 0, A = 0;
	if (kind == 3) {
		/* a swizzle whose block divides the tile */
		*P = pick(4), W = 1 + pick(3), A = W + pick(2);
		long block = 1L << (*P + W + A);
		if ((long)R * C % block)
			kind = 0;
	}
	switch (kind) {
	case 1: fprintf(f, "shared S %s [%d, %d] layout S[(%d, %d) : (1, %d)]\n", dtypes[dt], R, C, R, C, R); break;
	case 2:
		*pad = 1 + pick(8);
		fprintf(f, "shared S %s [%d, %d]\n", dtypes[dt], R, C + *pad);
		break;
	case 3: fprintf(f, "shared S %s [%d, %d] layout swizzle(%d, %d, %d)\n", dtypes[dt], R, C, *P, W, A); break;
	default: fprintf(f, "shared S %s [%d, %d]\n", dtypes[dt], R, C); break;
	}
	return kind;
}

/* the tile back out to B: a counted loop over row halves (its index in both
 * regions) or one copy; sometimes again through the fallback variant */
static void write_back(FILE *f, const Target *t, int R, int C, int grid, const char *breg, const char *sreg)
{
	if (R % 2 == 0 && chance(40)) {
		char base[32] = "";
		if (grid > 1)
			snprintf(base, sizeof base, "ctaid*%d + ", R);
		int h = R / 2;
		stmt(f, t, "", NULL, ST_REPEAT, "2 as i {");
		stmt(f, t, "  ", "cta", ST_COPY, "B[%si*%d : %si*%d + %d, :], S[i*%d : i*%d + %d, 0:%d]", base, h, base, h, h,
		     h, h, h, C);
		fprintf(f, "}\n");
	} else {
		stmt(f, t, "", "cta", ST_COPY, "%s, %s", breg, sreg);
	}
	if (chance(20))
		stmt(f, t, "", "cta", ST_COPY, "%s, %s dispatch=fallback", breg, sreg);
}

/* elementwise compute on the registers of L (set: f32, f16, bf16 tiles,
 * 16-bit ones from sm_80): an expression of each kind the statement has,
 * a mask on the lane (a predicate per register), a reversed row read in place */
static void compute(FILE *f, const Target *t, DType dt, int K)
{
	if (!(dt == DT_F32 || ((dt == DT_F16 || dt == DT_BF16) && target_has(t, CAP_SM80))) || !chance(50))
		return;
	switch (pick(4)) {
	case 0: stmt(f, t, "", NULL, ST_SET, "L[i, j] = max(L[i, j], 0.0) * 2.0 - 1.0"); break;
	case 1: stmt(f, t, "", NULL, ST_SET, "L[i, j] = fma(L[i, j], 0.5, -0x1p-3)"); break;
	case 2: stmt(f, t, "", NULL, ST_SET, "L[i, j] = select(j + 1 <= i, L[i, j], -L[i, j])"); break;
	default: stmt(f, t, "", NULL, ST_SET, "L[i, j] = min(L[i, j] + L[i, %d - j], 4.0)", K - 1); break;
	}
}

static void program(FILE *f, int idx)
{
	static const char *targets[] = {"sm_80", "sm_90", "sm_100a", "sm_75", "sm_90a", "sm_86"};
	const char *target = targets[idx % 3 == 0 ? pick(6) : idx % 3];
	const Target *t = target_find(target);
	/* cp.async: what its commit and wait rows need */
	int async_ok = target_has(t, stmt_info[ST_CPA_COMMIT].cap) && target_has(t, stmt_info[ST_CPA_WAIT].cap);
	static const int threads_opts[] = {32, 64, 128, 256, 96};
	int threads = threads_opts[pick(5)];
	int dt = pick(15), eb = dbytes[dt];
	static const int rows_opts[] = {1, 2, 4, 8, 16, 32, 64, 128, 3, 6, 12, 24};
	static const int cols_opts[] = {1, 2, 4, 8, 16, 32, 64, 5, 10, 128};
	int R, C;
	do {
		R = rows_opts[pick(12)];
		C = cols_opts[pick(10)];
	} while ((long)R * C * eb * 2 > 40000 || R * C < 1);
	int grid = chance(30) ? 1 + pick(8) : 1;
	fprintf(f, "# random program %d\ntarget %s\n\nkernel k%d\nthreads %d\n", idx, target, idx, threads);
	if (grid > 1)
		fprintf(f, "grid %d\n", grid);
	/* global tensors: grid tiles stacked along rows; row- or column-major */
	int colmajor = chance(25);
	int GR = R * grid;
	if (colmajor)
		fprintf(f, "param A %s [%d, %d] layout S[(%d, %d) : (1, %d)]\n", dtypes[dt], GR, C, GR, C, GR);
	else
		fprintf(f, "param A %s [%d, %d]\n", dtypes[dt], GR, C);
	fprintf(f, "param B %s [%d, %d]\n", dtypes[dt], GR, C);
	int pad = 0, P = 0, kind = shared_tile(f, dt, R, C, &pad, &P);
	char sreg[64];
	if (pad)
		snprintf(sreg, sizeof sreg, "S[:, 0:%d]", C);
	else
		snprintf(sreg, sizeof sreg, "S");
	char areg[96];
	if (grid > 1)
		snprintf(areg, sizeof areg, "A[ctaid*%d : ctaid*%d+%d, :]", R, R, R);
	else
		snprintf(areg, sizeof areg, "A");
	char breg[96];
	if (grid > 1)
		snprintf(breg, sizeof breg, "B[ctaid*%d : ctaid*%d+%d, :]", R, R, R);
	else
		snprintf(breg, sizeof breg, "B");
	/* registers: one row per thread of a scope, when the tile is tall enough */
	static const char *scopes[] = {"warp", "warpgroup", "cta"};
	static const char *axes[] = {"laneid", "tid_in_wg", "tx"};
	int sc = pick(3);
	int T = sc == 0 ? 32 : sc == 1 ? 128 : threads;
	if (sc == 1 && threads % 128)
		sc = 0, T = 32;
	int K = C > 16 ? 16 : C;
	int use_local = R >= T && K * eb <= 256 && chance(60);
	if (use_local)
		fprintf(f, "local L %s [%d, %d] layout S[(%d, %d) : (1@%s, 1)]\n", dtypes[dt], T, K, T, K, axes[sc]);
	int use_dump = use_local && chance(40);
	if (use_dump)
		fprintf(f, "param D %s [%d]\n", dtypes[dt], grid * threads * K);
	const char *scope_in = scopes[pick(3)];
	if (!strcmp(scope_in, "warpgroup") && threads % 128)
		scope_in = "cta";
	fprintf(f, "\n");
	int Ts = !strcmp(scope_in, "warp") ? 32 : !strcmp(scope_in, "warpgroup") ? 128 : threads;
	/* cp.async exactly where 4-byte pieces fit (make test requires that every
	 * such copy_async lowers): elements of 4 bytes or more go one by one in
	 * any layout; narrower ones need row-major runs of 4 bytes on both sides
	 * (padded rows and swizzle chunks included) */
	int fits = (R * C) % Ts == 0 && ((R * C / Ts) * eb) % 4 == 0 &&
	           (eb >= 4 || ((C * eb) % 4 == 0 && ((C + pad) * eb) % 4 == 0 && kind != 1 && !colmajor &&
	                        (kind != 3 || (1 << P) * eb >= 4)));
	char in[256];
	snprintf(in, sizeof in, "%s, %s", sreg, areg);
	copy_in(f, t, scope_in, async_ok && fits && chance(60), in);
	if (use_local) {
		char lreg[64];
		snprintf(lreg, sizeof lreg, "S[0:%d, 0:%d]", T, K);
		stmt(f, t, "", scopes[sc], ST_COPY, "L, %s", lreg);
		compute(f, t, dtype_pick[dt], K);
		if (use_dump)
			stmt(f, t, "", NULL, ST_DUMP, "L, D");
		stmt(f, t, "", NULL, ST_SYNC, NULL);
		stmt(f, t, "", scopes[sc], ST_COPY, "%s, L", lreg);
		stmt(f, t, "", NULL, ST_SYNC, NULL);
	}
	write_back(f, t, R, C, grid, breg, sreg);
}

/* TMA's swizzles: swizzle(4 - log2(eb), W, 3), the box row (C elements of
 * eb bytes) as wide as the span; W 0 (none) when the R rows hold no whole
 * pattern of 8 */
static int tma_swizzle(int R, int C, int eb)
{
	int W = 0;
	if (C * eb >= 32 && C * eb <= 128 && chance(50)) {
		W = C * eb == 32 ? 1 : C * eb == 64 ? 2 : 3;
		if ((R * C * eb) % (C * eb * 8))
			W = 0;
	}
	return W;
}

/* the shared tile S of a TMA copy, swizzled when W */
static void tma_tile(FILE *f, int dt, int R, int C, int W)
{
	int eb = dbytes[dt], e = eb == 1 ? 0 : eb == 2 ? 1 : eb == 4 ? 2 : 3;
	if (W)
		fprintf(f, "shared S %s [%d, %d] layout swizzle(%d, %d, 3)\n", dtypes[dt], R, C, 4 - e, W);
	else
		fprintf(f, "shared S %s [%d, %d]\n", dtypes[dt], R, C);
}

/* a TMA program (sm_90+): a box of a tma param into shared memory on an
 * mbarrier, then out again by a TMA store or an ordinary copy, sometimes
 * twice through one stage (a parity that alternates, a reused stage) */
static void tma_program(FILE *f, int idx)
{
	static const char *targets[] = {"sm_90", "sm_90a", "sm_100a"};
	int dt, eb, C, R;
	static const int inner_bytes[] = {16, 32, 64, 128, 256};
	do {
		dt = pick(15);
		eb = dbytes[dt];
		C = inner_bytes[pick(5)] / eb;
		R = 1 << pick(7);
	} while (C < 1 || C > 256 || R * C * eb > 32768);
	int W = tma_swizzle(R, C, eb);
	int grid = 1 + pick(4), rounds = 1 + pick(2), cols = C * (1 + pick(2));
	int GR = R * grid * rounds;
	/* threads before the target: the order gcc evaluated them in when both
	 * were arguments of one call (C leaves that order unspecified) */
	int threads = 32 << pick(3);
	const char *target = targets[pick(3)];
	const Target *t = target_find(target);
	fprintf(f, "# random TMA program %d\ntarget %s\n\nkernel k%d\nthreads %d\ngrid %d\n", idx, target, idx, threads,
	        grid);
	fprintf(f, "param A %s [%d, %d] tma\n", dtypes[dt], GR, cols);
	int store = chance(60);
	fprintf(f, "param B %s [%d, %d]%s\n", dtypes[dt], GR, cols, store ? " tma" : "");
	tma_tile(f, dt, R, C, W);
	fprintf(f, "mbarrier bar\n\n");
	stmt(f, t, "", NULL, ST_MBAR_INIT, "bar");
	int col0 = cols > C ? C * pick(cols / C) : 0;
	char rows[96];
	if (rounds > 1) {
		snprintf(rows, sizeof rows, "ctaid*%d + i*%d : ctaid*%d + i*%d + %d", R * rounds, R, R * rounds, R, R);
		stmt(f, t, "", NULL, ST_REPEAT, "%d as i%s {", rounds, unroll_option(grid));
	} else {
		snprintf(rows, sizeof rows, "ctaid*%d : ctaid*%d + %d", R, R, R);
	}
	if (chance(50))
		stmt(f, t, "", NULL, ST_MBAR_EXPECT_TX, "bar");
	else
		stmt(f, t, "", NULL, ST_MBAR_EXPECT_TX, "bar, %d", R * C * eb);
	stmt(f, t, "", "cta", ST_COPY_ASYNC, "S, A[%s, %d:%d] mbarrier bar", rows, col0, col0 + C);
	stmt(f, t, "", NULL, ST_MBAR_WAIT, "bar");
	stmt(f, t, "", NULL, ST_SYNC, NULL);
	if (store) {
		stmt(f, t, "", "cta", ST_COPY_ASYNC, "B[%s, %d:%d], S", rows, col0, col0 + C);
		stmt(f, t, "", NULL, ST_BULK_COMMIT, NULL);
		stmt(f, t, "", NULL, ST_BULK_WAIT_READ, "0");
	} else {
		stmt(f, t, "", "cta", ST_COPY, "B[%s, %d:%d], S", rows, col0, col0 + C);
		stmt(f, t, "", NULL, ST_SYNC, NULL);
	}
	if (rounds > 1)
		fprintf(f, "}\n");
	if (store)
		stmt(f, t, "", NULL, ST_BULK_WAIT, "0");
}

/* a program with runtime sizes: a ragged M x K (or M x C) tensor copied
 * through a shared tile, every edge access guarded; the '# set:' values
 * satisfy the facts, and a static copy of the tile shows the zero fill */
static void ragged_program(FILE *f, int idx)
{
	static const char *targets[] = {"sm_80", "sm_90", "sm_90a", "sm_75"};
	const char *target = targets[pick(4)];
	const Target *t = target_find(target);
	int dt = pick(15), eb = dbytes[dt];
	static const int rows_opts[] = {1, 2, 4, 8, 16, 32, 64, 3, 12};
	static const int cols_opts[] = {1, 2, 4, 8, 16, 32, 64, 6};
	int R, C;
	do {
		R = rows_opts[pick(9)];
		C = cols_opts[pick(8)];
	} while ((long)R * C * eb > 16384);
	int threads = 32 << pick(3), gmax = 1 + pick(4), kdyn = chance(60), mult = 1 << pick(5);
	fprintf(f, "# random ragged program %d\ntarget %s\n", idx, target);
	int M = 1 + pick(gmax * R), K = kdyn ? mult * (1 + pick((gmax * C + mult - 1) / mult)) : C;
	if (kdyn && K > gmax * C)
		K -= mult;
	if (K < 1)
		K = mult;
	int kmax = kdyn ? (gmax * C > K ? gmax * C : K) : C;
	/* A: row-major, or with a leading dimension LD (rows, or columns for colmajor, LD apart) */
	int cm = chance(25), ld = chance(40), LD = (cm ? M : K) + pick(5);
	if (kdyn)
		fprintf(f, "# set: M=%d K=%d", M, K);
	else
		fprintf(f, "# set: M=%d", M);
	fprintf(f, ld ? " LD=%d\n" : "\n", LD);
	fprintf(f, "\nkernel k%d\nthreads %d\nparam M u32\nassume M <= %d\n", idx, threads, gmax * R);
	int gy = (kmax + C - 1) / C;
	if (kdyn)
		fprintf(f, "param K u32\nassume K %% %d == 0\nassume K <= %d\ngrid cdiv(M, %d), cdiv(K, %d)\n", mult, kmax, R,
		        C);
	else
		fprintf(f, "grid cdiv(M, %d)\n", R);
	char cdim[16];
	snprintf(cdim, sizeof cdim, "%d", C);
	if (ld)
		fprintf(f, "param LD u32\n");
	fprintf(f, "param A %s [M, %s]%s%s\nparam B %s [M, %s]\n", dtypes[dt], kdyn ? "K" : cdim, cm ? " colmajor" : "",
	        ld ? " ld LD" : "", dtypes[dt], kdyn ? "K" : cdim);
	fprintf(f, "param D %s [%d, %d]\nshared S %s [%d, %d]\n\n", dtypes[dt], gmax * R * gy, C, dtypes[dt], R, C);
	char cols[64], rows[64], drows[96];
	snprintf(rows, sizeof rows, "ctaid*%d : ctaid*%d + %d", R, R, R);
	if (kdyn) {
		snprintf(cols, sizeof cols, "ctaid_y*%d : ctaid_y*%d + %d", C, C, C);
		snprintf(drows, sizeof drows, "ctaid_y*%d + ctaid*%d : ctaid_y*%d + ctaid*%d + %d", gmax * R, R, gmax * R, R,
		         R);
	} else {
		snprintf(cols, sizeof cols, ":");
		snprintf(drows, sizeof drows, "%s", rows);
	}
	static const char *scopes[] = {"warp", "cta"};
	const char *sc = scopes[pick(2)];
	int Ts = !strcmp(sc, "warp") ? 32 : threads;
	/* cp.async moves 4+ bytes: elements of 4 bytes or more one by one; narrower
	 * ones not from an LD or colmajor A (no alignment facts) */
	int async_ok = target_has(t, stmt_info[ST_CPA_COMMIT].cap) && target_has(t, stmt_info[ST_CPA_WAIT].cap);
	int fits = (R * C) % Ts == 0 && ((R * C / Ts) * eb) % 4 == 0 && (C * eb) % 4 == 0 && async_ok &&
	           (eb >= 4 || (!cm && !ld && (!kdyn || (mult * eb) % 4 == 0)));
	char in[256];
	snprintf(in, sizeof in, "S, A[%s, %s]", rows, cols);
	copy_in(f, t, sc, fits && chance(60), in);
	stmt(f, t, "", "cta", ST_COPY, "B[%s, %s], S", rows, cols);
	stmt(f, t, "", "cta", ST_COPY, "D[%s, :], S", drows);
}

/* a multicast program (sm_90a class): a cluster of 2 or 4 CTAs, each
 * multicasting its piece of the cluster's tile to every CTA (mask all
 * ones), waiting for all pieces, writing the whole tile out (TMA store or
 * copy), in one or two rounds with a cluster.sync between */
static void mcast_program(FILE *f, int idx)
{
	static const char *targets[] = {"sm_90a", "sm_100a"};
	static const int inner_bytes[] = {16, 32, 64, 128, 256};
	int n = chance(50) ? 2 : 4, dt, eb, C, r;
	do {
		dt = pick(15);
		eb = dbytes[dt];
		C = inner_bytes[pick(5)] / eb;
		r = 1 << pick(6);
	} while (C < 1 || C > 256 || (r * C * eb) % 128 || n * r * C * eb > 32768);
	int R = n * r, W = tma_swizzle(R, C, eb);
	int grid = n * (1 + pick(2)), rounds = 1 + pick(2), store = chance(50);
	/* threads before the target, as in tma_program */
	int threads = 32 << pick(3);
	const char *target = targets[pick(2)];
	const Target *t = target_find(target);
	if (!target_has(t, CAP_MULTICAST)) {
		fprintf(stderr, "randtile: %s has no multicast\n", target);
		exit(1);
	}
	fprintf(f, "# random multicast program %d\ntarget %s\n\nkernel k%d\nthreads %d\ngrid %d\ncluster %d\n", idx,
	        target, idx, threads, grid, n);
	fprintf(f, "param A %s [%d, %d] tma\n", dtypes[dt], grid * r * rounds, C);
	fprintf(f, "param B %s [%d, %d]%s\n", dtypes[dt], grid * R * rounds, C, store ? " tma" : "");
	tma_tile(f, dt, R, C, W);
	int split = chance(50); /* cluster.arrive ... cluster.wait around each round */
	StmtKind open = split ? ST_CLUSTER_ARRIVE : ST_CLUSTER_SYNC;
	fprintf(f, "mbarrier bar\n\n");
	stmt(f, t, "", NULL, ST_MBAR_INIT, "bar");
	stmt(f, t, "", NULL, open, NULL);
	const char *i = rounds > 1 ? "i" : "0";
	if (rounds > 1)
		stmt(f, t, "", NULL, ST_REPEAT, "%d as i%s {", rounds, unroll_option(grid));
	if (split)
		stmt(f, t, "", NULL, ST_CLUSTER_WAIT, NULL);
	if (chance(50))
		stmt(f, t, "", NULL, ST_MBAR_EXPECT_TX, "bar");
	else
		stmt(f, t, "", NULL, ST_MBAR_EXPECT_TX, "bar, %d", R * C * eb);
	stmt(f, t, "", "cta", ST_COPY_ASYNC,
	     "S[cluster_ctarank*%d : cluster_ctarank*%d + %d, :], A[ctaid*%d + %s*%d : ctaid*%d + %s*%d + %d, :] "
	     "mbarrier bar multicast %d",
	     r, r, r, r * rounds, i, r, r * rounds, i, r, r, (1 << n) - 1);
	stmt(f, t, "", NULL, ST_MBAR_WAIT, "bar");
	if (store) {
		stmt(f, t, "", "cta", ST_COPY_ASYNC, "B[ctaid*%d + %s*%d : ctaid*%d + %s*%d + %d, :], S", R * rounds, i, R,
		     R * rounds, i, R, R);
		stmt(f, t, "", NULL, ST_BULK_COMMIT, NULL);
		stmt(f, t, "", NULL, ST_BULK_WAIT_READ, "0");
	} else {
		stmt(f, t, "", "cta", ST_COPY, "B[ctaid*%d + %s*%d : ctaid*%d + %s*%d + %d, :], S", R * rounds, i, R,
		     R * rounds, i, R, R);
	}
	stmt(f, t, "", NULL, open, NULL);
	if (rounds > 1)
		fprintf(f, "}\n");
	if (split)
		stmt(f, t, "", NULL, ST_CLUSTER_WAIT, NULL);
	if (store)
		stmt(f, t, "", NULL, ST_BULK_WAIT, "0");
}

/* randtile --reduce: a reduction of a random register layout. The tile
 * [2^rb, 2^cb] of a warp (5 lane bits) or a warpgroup (5 lane bits and 2
 * warp bits) spreads its row and column bits over lane, warp and register
 * bits at random; in half of the warpgroup programs the warp bits may fall
 * in the reduced dimension too (a reduction across warps: shared scratch
 * and a barrier). DST keeps the kept bits' places (registers renumbered
 * densely) and replicates over the reduced dimension's lane and warp bits,
 * so every thread that holds part of a row holds its result. */
typedef struct Bit {
	Axis axis;
	int pos;
} Bit;

/* "(2, 2, ...) : (s@axis, ...)" for the iters of bits b[0..n) (most significant first) */
static void put_iters(FILE *f, const Bit *b, int n)
{
	fputc('(', f);
	for (int i = 0; i < n; i++)
		fprintf(f, "%s2", i ? ", " : "");
	fputs(") : (", f);
	for (int i = 0; i < n; i++) {
		fprintf(f, "%s%d", i ? ", " : "", 1 << b[i].pos);
		if (b[i].axis != AX_M)
			fprintf(f, "@%s", axis_name(b[i].axis));
	}
	fputc(')', f);
}

/* a random order of 0..n-1 */
static void shuffle(int *v, int n)
{
	for (int i = 0; i < n; i++)
		v[i] = i;
	for (int i = n - 1; i > 0; i--) {
		int j = pick(i + 1), x = v[i];
		v[i] = v[j];
		v[j] = x;
	}
}

/* element bits (rows, then columns, most significant first) to places:
 * 2 warp bits (a warpgroup) among the kept dimension's (anywhere: among
 * all bits), 5 lane bits among the rest, registers for the others, each
 * group in a random order */
static int place_bits(Bit *b, int n, int rb, bool reduce_rows, bool wg, bool anywhere)
{
	int order[16], lanes[5], nregs = 0, warps = 0, nl = 0;
	shuffle(order, n);
	shuffle(lanes, 5);
	for (int k = 0; k < n; k++)
		b[k].axis = AX_COUNT;
	for (int k = 0; k < n && wg && warps < 2; k++) {
		int i = order[k];
		if (anywhere || (reduce_rows ? i >= rb : i < rb))
			b[i] = (Bit){AX_WID_IN_WG, warps++};
	}
	for (int k = 0; k < n; k++) {
		int i = order[k];
		if (b[i].axis != AX_COUNT)
			continue;
		b[i] = nl < 5 ? (Bit){AX_LANEID, lanes[nl++]} : (Bit){AX_M, nregs++};
	}
	int pos[16];
	shuffle(pos, nregs);
	for (int i = 0, r = 0; i < n; i++)
		if (b[i].axis == AX_M)
			b[i].pos = pos[r++];
	return nregs;
}

static void reduce_program(FILE *f, int idx)
{
	const Target *t = target_find("sm_90");
	bool wg = chance(50), reduce_rows = chance(50);
	int rb = 1 + pick(5), cb = 1 + pick(5);
	while (rb + cb < (wg ? 7 : 5) || (reduce_rows ? cb : rb) < (wg ? 2 : 0))
		reduce_rows ? cb++ : rb++;
	int n = rb + cb;
	Bit b[16], d[16], rep[8];
	place_bits(b, n, rb, reduce_rows, wg, wg && chance(50));
	/* DST: the kept bits in place, their registers renumbered densely (in
	 * order of the source's register), the reduced lane bits replicated */
	int nd = 0, nrep = 0;
	for (int i = 0; i < n; i++) {
		bool reduced = reduce_rows ? i < rb : i >= rb;
		if (!reduced) {
			d[nd] = b[i];
			if (b[i].axis == AX_M) {
				d[nd].pos = 0;
				for (int j = 0; j < n; j++)
					d[nd].pos += b[j].axis == AX_M && !(reduce_rows ? j < rb : j >= rb) && b[j].pos < b[i].pos;
			}
			nd++;
		} else if (b[i].axis == AX_LANEID || b[i].axis == AX_WID_IN_WG) {
			rep[nrep++] = b[i];
		}
	}
	static const char *ops[] = {"max", "min", "sum"};
	static const DType src_dt[] = {DT_F32, DT_F32, DT_F16, DT_BF16};
	DType sdt = src_dt[pick(4)];
	const char *scope = wg ? "warpgroup" : "warp";
	int R = 1 << rb, C = 1 << cb, dregs = 1;
	for (int i = 0; i < nd; i++)
		dregs *= d[i].axis == AX_M ? 2 : 1;
	fprintf(f, "# random reduction %d\ntarget %s\n\nkernel rr%d\nthreads %d\n", idx, t->name, idx, wg ? 128 : 32);
	fprintf(f, "param X %s [%d, %d]%s\nparam Y f32 [%d, %d]\nparam D f32 [%d]\n", dtype_name(sdt), R, C,
	        chance(30) ? " fill edges" : "", reduce_rows ? 1 : R, reduce_rows ? C : 1, (wg ? 128 : 32) * dregs);
	fprintf(f, "local S %s [%d, %d] layout S[", dtype_name(sdt), R, C);
	put_iters(f, b, n);
	fprintf(f, "]\nlocal M f32 [%d, %d] layout S[", reduce_rows ? 1 : R, reduce_rows ? C : 1);
	put_iters(f, d, nd);
	fputs("]", f);
	if (nrep) {
		fputs(" + R[", f);
		put_iters(f, rep, nrep);
		fputs("]", f);
	}
	fputs("\n\n", f);
	stmt(f, t, "", scope, ST_COPY, "S, X");
	const char *op = ops[pick(3)];
	stmt(f, t, "", NULL, op[1] == 'a' ? ST_REDUCE_MAX : op[1] == 'i' ? ST_REDUCE_MIN : ST_REDUCE_SUM, "M, S");
	stmt(f, t, "", NULL, ST_DUMP, "M, D");
	stmt(f, t, "", scope, ST_COPY, "Y, M");
}

int main(int argc, char **argv)
{
	if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		printf("usage: randtile [--reduce] SEED N DIR\n"
		       "writes N random .tile programs DIR/r0000.tile... from SEED (--reduce: reductions)\n");
		return 0;
	}
	if (argc == 2 && (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V"))) {
		printf("randtile (tilepx) %s\n", TILEPX_VERSION_STRING);
		return 0;
	}
	bool reductions = argc == 5 && !strcmp(argv[1], "--reduce");
	if (reductions) /* randtile --reduce SEED N DIR: reductions of random register layouts */
		argv++, argc--;
	if (argc != 4) {
		fprintf(stderr, "usage: randtile [--reduce] SEED N DIR\n");
		return 2;
	}
	state = strtoull(argv[1], NULL, 10) * 2654435761u + 88172645463325252ull;
	for (int i = 0; i < 15; i++) {
		dtypes[i] = dtype_name(dtype_pick[i]);
		dbytes[i] = dtype_bytes(dtype_pick[i]);
	}
	int n = atoi(argv[2]);
	for (int i = 0; i < n; i++) {
		char path[4096];
		snprintf(path, sizeof path, "%s/r%04d.tile", argv[3], i);
		FILE *f = fopen(path, "w");
		if (!f) {
			perror(path);
			return 1;
		}
		if (reductions)
			reduce_program(f, i);
		else if (i % 16 == 13)
			mcast_program(f, i);
		else if (i % 8 == 5)
			tma_program(f, i);
		else if (i % 8 == 3)
			ragged_program(f, i);
		else
			program(f, i);
		fclose(f);
	}
	return 0;
}
