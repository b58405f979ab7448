/* wgmma descriptors: tilepx's derivation (src/ptx/wgmma_desc.c, from an
 * operand's byte offsets) against the rule CuTe's make_gmma_desc applies
 * (cute/atom/mma_traits_sm90_gmma.hpp, re-derived here from its canonical
 * forms, no code shared): for the layouts tile_to_shape(Layout_{K,MN}_
 * {INTER,SW32,SW64,SW128}_Atom<T>, (rows, K)) builds, over every element
 * size, major-ness (MN only for 16-bit types), swizzle and a spread of row
 * counts. In 16-byte units (T elements each), W = 1, 2, 4, 8 for none, 32,
 * 64, 128 bytes:
 *   K-major:  ((8, m), 2) : ((W, SBO), 1 if swizzled else LBO)
 *   MN-major: ((W, n), (8, k)) : ((1, LBO), (W, SBO)) swizzled,
 *             ((1, n), (8, k)) : ((-, SBO), (1, LBO)) interleaved
 * layout type 0 interleave, 1 128B, 2 64B, 3 32B. Fields the layout does
 * not read (a mode of size 1) are not compared. Also rejected: layouts
 * with a wrong row stride, a non-contiguous chunk, a misplaced group. */
#include "unit.h"

/* element offset of (row i, k j) in tile_to_shape(atom, (rows, kext)): atoms
 * stacked along rows first (column-major tiling), each atom compact */
static int64_t cute_off(bool mn, int W, int T, int rows, int kext, int i, int j)
{
	(void)kext;
	if (!mn) /* atom (8, W*T) : (W*T, 1) */
		return (int64_t)(i % 8) * W * T + (int64_t)(i / 8) * 8 * W * T + j % (W * T) + (int64_t)(j / (W * T)) * rows * W * T;
	/* atom (W*T, 8) : (1, W*T) */
	return i % (W * T) + (int64_t)(i / (W * T)) * 8 * W * T + (int64_t)(j % 8) * W * T + (int64_t)(j / 8) * 8 * rows;
}

static void one(int es, bool mn, int swz, int rows)
{
	int T = 16 / es, W = swz ? swz / 16 : 1, kinst = 32 / es, kext = 2 * kinst;
	if (mn && rows % (W * T))
		return; /* tile_to_shape needs whole atoms */
	if (!mn && (W * T) > kext && kext % (W * T))
		return;
	if (!mn && kext % (W * T) && (W * T) % kext)
		return;
	int64_t off[256 * 64];
	int ktile = !mn && W * T > kext ? W * T : kext; /* the smem tile's K: at least one atom */
	for (int i = 0; i < rows; i++)
		for (int j = 0; j < kext; j++)
			off[i * kext + j] = cute_off(mn, W, T, rows, ktile, i, j) * es;
	WgDesc d;
	char why[400], note[300];
	bool ok = wgmma_derive(off, rows, kext, es, swz, kinst, "B", &d, why, sizeof why, note, sizeof note);
	CHECK(ok, "es %d %s swz %d rows %d: %s", es, mn ? "MN" : "K", swz, rows, why);
	if (!ok)
		return;
	/* CuTe's fields, in bytes */
	int type = swz == 128 ? 1 : swz == 64 ? 2 : swz == 32 ? 3 : 0;
	int64_t lbo, sbo;
	bool lbo_read, sbo_read;
	if (!mn) {
		sbo = (int64_t)8 * W * 16;                   /* the 8-row groups of the tiled atoms */
		lbo = swz ? 16 : (int64_t)rows * 16;         /* swizzled: 1 unit; else the next K chunk, after all rows */
		sbo_read = rows > 8;
		lbo_read = !swz;
	} else if (swz) {
		lbo = (int64_t)8 * W * 16;                   /* the next atom along MN */
		sbo = (int64_t)8 * rows * es;                /* the next 8 K rows */
		lbo_read = rows > W * T;
		sbo_read = true;
	} else {
		sbo = 128;                                   /* the next T MN elements: one 8 x 16-byte core matrix */
		lbo = (int64_t)8 * rows * es;                /* the next 8 K rows */
		sbo_read = rows > T;
		lbo_read = true;
	}
	CHECK(d.mn_major == mn && d.mode == type && d.swz == swz, "es %d %s swz %d rows %d: mode %d", es, mn ? "MN" : "K",
	      swz, rows, d.mode);
	CHECK(d.lbo_used == lbo_read && (!lbo_read || d.lbo == lbo), "es %d %s swz %d rows %d: LBO %lld (used %d), CuTe %lld",
	      es, mn ? "MN" : "K", swz, rows, (long long)d.lbo, d.lbo_used, (long long)lbo);
	CHECK(d.sbo_used == sbo_read && (!sbo_read || d.sbo == sbo), "es %d %s swz %d rows %d: SBO %lld (used %d), CuTe %lld",
	      es, mn ? "MN" : "K", swz, rows, (long long)d.sbo, d.sbo_used, (long long)sbo);
	/* the descriptor bits where both read the fields */
	WgDesc c = d;
	c.lbo = lbo_read ? lbo : d.lbo;
	c.sbo = sbo_read ? sbo : d.sbo;
	uint32_t start = 0x400 + 0x1230;
	uint64_t want = (uint64_t)(start >> 4) | (uint64_t)(c.lbo >> 4) << 16 | (uint64_t)(c.sbo >> 4) << 32 | (uint64_t)type << 62;
	CHECK(wgmma_desc_encode(start, &d) == want, "es %d %s swz %d rows %d: 0x%016llx, want 0x%016llx", es, mn ? "MN" : "K",
	      swz, rows, (unsigned long long)wgmma_desc_encode(start, &d), (unsigned long long)want);
	/* the second k-step starts 32 bytes on (K-major, inside the swizzle row or the next chunk pair) */
	int64_t step1 = off[kinst] - off[0];
	CHECK(d.ksteps == 2 && d.step_off[1] == step1, "k-step 1 at %lld", (long long)d.step_off[1]);
}

static void bad(void)
{
	/* K-major bf16, 128B swizzle, rows 144 bytes apart (padded) */
	int64_t off[64 * 16];
	WgDesc d;
	char why[400], note[300];
	for (int i = 0; i < 64; i++)
		for (int j = 0; j < 16; j++)
			off[i * 16 + j] = (int64_t)i * 144 + j * 2;
	CHECK(!wgmma_derive(off, 64, 16, 2, 128, 16, "A", &d, why, sizeof why, note, sizeof note) && strstr(why, "144 bytes apart"),
	      "%s", why);
	/* K not contiguous inside a 16-byte run */
	for (int i = 0; i < 64; i++)
		for (int j = 0; j < 16; j++)
			off[i * 16 + j] = (int64_t)i * 128 + (j % 2) * 2 + (j / 2) * 16;
	CHECK(!wgmma_derive(off, 64, 16, 2, 128, 16, "A", &d, why, sizeof why, note, sizeof note), "non-contiguous run accepted");
	/* 8-row groups unevenly spaced */
	for (int i = 0; i < 64; i++)
		for (int j = 0; j < 16; j++)
			off[i * 16 + j] = (int64_t)(i % 8) * 128 + (int64_t)(i / 8) * 1024 + (i >= 32 ? 512 : 0) + j * 2;
	CHECK(!wgmma_derive(off, 64, 16, 2, 128, 16, "A", &d, why, sizeof why, note, sizeof note) && strstr(why, "evenly"),
	      "%s", why);
}

int main(void)
{
	static const int rows[] = {8, 16, 24, 64, 128, 256};
	for (int e = 0; e < 3; e++) {
		int es = e == 0 ? 2 : e == 1 ? 4 : 1;
		for (int mn = 0; mn < (es == 2 ? 2 : 1); mn++)
			for (int s = 0; s < 4; s++)
				for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++)
					one(es, mn, s ? 16 << s : 0, rows[r]);
	}
	bad();
	UNIT_END();
}
