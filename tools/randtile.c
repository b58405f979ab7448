/* randtile SEED N DIR: write N random valid .tile programs (reproducible
 * from SEED) covering shapes, dtypes, layouts (row/column-major, padded,
 * swizzled), scopes, grids, repeat loops, registers and targets, TMA and
 * multicast TMA in clusters. The test
 * suite emits each one and assembles it with ptxas. */
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

static const char *dtypes[] = {"i8", "u8", "e4m3", "e5m2", "i16", "u16", "f16", "bf16",
                               "i32", "u32", "f32", "tf32", "i64", "u64", "f64"};
static const int dbytes[] = {1, 1, 1, 1, 2, 2, 2, 2, 4, 4, 4, 4, 8, 8, 8};

static void program(FILE *f, int idx)
{
	static const char *targets[] = {"sm_80", "sm_90", "sm_100a", "sm_75", "sm_90a", "sm_86"};
	const char *target = targets[idx % 3 == 0 ? pick(6) : idx % 3];
	int async_ok = strcmp(target, "sm_75") != 0;
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
	/* shared tile: row-major, column-major, padded rows or swizzled */
	int kind = pick(4), pad = 0, P = 0, W = 0, A = 0;
	if (kind == 3) {
		/* a swizzle whose block divides the tile */
		P = pick(4), W = 1 + pick(3), A = W + pick(2);
		long block = 1L << (P + W + A);
		if ((long)R * C % block)
			kind = 0;
	}
	switch (kind) {
	case 1: fprintf(f, "shared S %s [%d, %d] layout S[(%d, %d) : (1, %d)]\n", dtypes[dt], R, C, R, C, R); break;
	case 2:
		pad = 1 + pick(8);
		fprintf(f, "shared S %s [%d, %d]\n", dtypes[dt], R, C + pad);
		break;
	case 3: fprintf(f, "shared S %s [%d, %d] layout swizzle(%d, %d, %d)\n", dtypes[dt], R, C, P, W, A); break;
	default: fprintf(f, "shared S %s [%d, %d]\n", dtypes[dt], R, C); break;
	}
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
	if (async_ok && fits && chance(60)) {
		fprintf(f, "%s copy_async %s, %s\ncp_async.commit\ncp_async.wait 0\n", scope_in, sreg, areg);
	} else {
		fprintf(f, "%s copy %s, %s\n", scope_in, sreg, areg);
	}
	fprintf(f, "sync\n");
	if (use_local) {
		char lreg[64];
		snprintf(lreg, sizeof lreg, "S[0:%d, 0:%d]", T, K);
		fprintf(f, "%s copy L, %s\n", scopes[sc], lreg);
		if (use_dump)
			fprintf(f, "dump L, D\n");
		fprintf(f, "sync\n%s copy %s, L\nsync\n", scopes[sc], lreg);
	}
	if (R % 2 == 0 && chance(40)) {
		/* a counted loop over row halves, its index in both regions */
		char base[32] = "";
		if (grid > 1)
			snprintf(base, sizeof base, "ctaid*%d + ", R);
		int h = R / 2;
		fprintf(f, "repeat 2 as i {\n  cta copy B[%si*%d : %si*%d + %d, :], S[i*%d : i*%d + %d, 0:%d]\n}\n", base, h,
		        base, h, h, h, h, h, C);
	} else {
		fprintf(f, "cta copy %s, %s\n", breg, sreg);
	}
	if (chance(20))
		fprintf(f, "cta copy %s, %s dispatch=fallback\n", breg, sreg);
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
	/* TMA's swizzles: swizzle(4 - log2(eb), W, 3), the box row as wide as the span */
	int e = eb == 1 ? 0 : eb == 2 ? 1 : eb == 4 ? 2 : 3, W = 0;
	if (C * eb >= 32 && C * eb <= 128 && chance(50)) {
		W = C * eb == 32 ? 1 : C * eb == 64 ? 2 : 3;
		if ((R * C * eb) % (C * eb * 8))
			W = 0;
	}
	int grid = 1 + pick(4), rounds = 1 + pick(2), cols = C * (1 + pick(2));
	int GR = R * grid * rounds;
	fprintf(f, "# random TMA program %d\ntarget %s\n\nkernel k%d\nthreads %d\ngrid %d\n", idx, targets[pick(3)], idx,
	        32 << pick(3), grid);
	fprintf(f, "param A %s [%d, %d] tma\n", dtypes[dt], GR, cols);
	int store = chance(60);
	fprintf(f, "param B %s [%d, %d]%s\n", dtypes[dt], GR, cols, store ? " tma" : "");
	if (W)
		fprintf(f, "shared S %s [%d, %d] layout swizzle(%d, %d, 3)\n", dtypes[dt], R, C, 4 - e, W);
	else
		fprintf(f, "shared S %s [%d, %d]\n", dtypes[dt], R, C);
	fprintf(f, "mbarrier bar\n\nmbarrier.init bar\n");
	int col0 = cols > C ? C * pick(cols / C) : 0;
	char rows[96];
	if (rounds > 1) {
		snprintf(rows, sizeof rows, "ctaid*%d + i*%d : ctaid*%d + i*%d + %d", R * rounds, R, R * rounds, R, R);
		fprintf(f, "repeat %d as i {\n", rounds);
	} else {
		snprintf(rows, sizeof rows, "ctaid*%d : ctaid*%d + %d", R, R, R);
	}
	if (chance(50))
		fprintf(f, "mbarrier.expect_tx bar\n");
	else
		fprintf(f, "mbarrier.expect_tx bar, %d\n", R * C * eb);
	fprintf(f, "cta copy_async S, A[%s, %d:%d] mbarrier bar\nmbarrier.wait bar\nsync\n", rows, col0, col0 + C);
	if (store)
		fprintf(f, "cta copy_async B[%s, %d:%d], S\nbulk.commit\nbulk.wait_read 0\n", rows, col0, col0 + C);
	else
		fprintf(f, "cta copy B[%s, %d:%d], S\nsync\n", rows, col0, col0 + C);
	if (rounds > 1)
		fprintf(f, "}\n");
	if (store)
		fprintf(f, "bulk.wait 0\n");
}

/* a program with runtime sizes: a ragged M x K (or M x C) tensor copied
 * through a shared tile, every edge access guarded; the '# set:' values
 * satisfy the facts, and a static copy of the tile shows the zero fill */
static void ragged_program(FILE *f, int idx)
{
	static const char *targets[] = {"sm_80", "sm_90", "sm_90a", "sm_75"};
	const char *target = targets[pick(4)];
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
	int fits = (R * C) % Ts == 0 && ((R * C / Ts) * eb) % 4 == 0 && (C * eb) % 4 == 0 && strcmp(target, "sm_75") &&
	           (eb >= 4 || (!cm && !ld && (!kdyn || (mult * eb) % 4 == 0)));
	if (fits && chance(60))
		fprintf(f, "%s copy_async S, A[%s, %s]\ncp_async.commit\ncp_async.wait 0\n", sc, rows, cols);
	else
		fprintf(f, "%s copy S, A[%s, %s]\n", sc, rows, cols);
	fprintf(f, "sync\ncta copy B[%s, %s], S\ncta copy D[%s, :], S\n", rows, cols, drows);
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
	int R = n * r, e = eb == 1 ? 0 : eb == 2 ? 1 : eb == 4 ? 2 : 3, W = 0;
	if (C * eb >= 32 && C * eb <= 128 && chance(50)) {
		W = C * eb == 32 ? 1 : C * eb == 64 ? 2 : 3;
		if ((R * C * eb) % (C * eb * 8))
			W = 0;
	}
	int grid = n * (1 + pick(2)), rounds = 1 + pick(2), store = chance(50);
	fprintf(f, "# random multicast program %d\ntarget %s\n\nkernel k%d\nthreads %d\ngrid %d\ncluster %d\n", idx,
	        targets[pick(2)], idx, 32 << pick(3), grid, n);
	fprintf(f, "param A %s [%d, %d] tma\n", dtypes[dt], grid * r * rounds, C);
	fprintf(f, "param B %s [%d, %d]%s\n", dtypes[dt], grid * R * rounds, C, store ? " tma" : "");
	if (W)
		fprintf(f, "shared S %s [%d, %d] layout swizzle(%d, %d, 3)\n", dtypes[dt], R, C, 4 - e, W);
	else
		fprintf(f, "shared S %s [%d, %d]\n", dtypes[dt], R, C);
	int split = chance(50); /* cluster.arrive ... cluster.wait around each round */
	fprintf(f, "mbarrier bar\n\nmbarrier.init bar\n%s\n", split ? "cluster.arrive" : "cluster.sync");
	const char *i = rounds > 1 ? "i" : "0";
	if (rounds > 1)
		fprintf(f, "repeat %d as i {\n", rounds);
	if (split)
		fprintf(f, "cluster.wait\n");
	if (chance(50))
		fprintf(f, "mbarrier.expect_tx bar\n");
	else
		fprintf(f, "mbarrier.expect_tx bar, %d\n", R * C * eb);
	fprintf(f, "cta copy_async S[cluster_ctarank*%d : cluster_ctarank*%d + %d, :], A[ctaid*%d + %s*%d : ctaid*%d + "
	        "%s*%d + %d, :] mbarrier bar multicast %d\nmbarrier.wait bar\n", r, r, r, r * rounds, i, r, r * rounds, i, r,
	        r, (1 << n) - 1);
	if (store)
		fprintf(f, "cta copy_async B[ctaid*%d + %s*%d : ctaid*%d + %s*%d + %d, :], S\nbulk.commit\nbulk.wait_read 0\n",
		        R * rounds, i, R, R * rounds, i, R, R);
	else
		fprintf(f, "cta copy B[ctaid*%d + %s*%d : ctaid*%d + %s*%d + %d, :], S\n", R * rounds, i, R, R * rounds, i, R,
		        R);
	fprintf(f, split ? "cluster.arrive\n" : "cluster.sync\n");
	if (rounds > 1)
		fprintf(f, "}\n");
	if (split)
		fprintf(f, "cluster.wait\n");
	if (store)
		fprintf(f, "bulk.wait 0\n");
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: randtile SEED N DIR\n");
		return 2;
	}
	state = strtoull(argv[1], NULL, 10) * 2654435761u + 88172645463325252ull;
	int n = atoi(argv[2]);
	for (int i = 0; i < n; i++) {
		char path[4096];
		snprintf(path, sizeof path, "%s/r%04d.tile", argv[3], i);
		FILE *f = fopen(path, "w");
		if (!f) {
			perror(path);
			return 1;
		}
		if (i % 16 == 13)
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
