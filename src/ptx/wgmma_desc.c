/* wgmma shared-memory matrix descriptors, derived from an operand's byte
 * offsets and proved canonical (PTX ISA, "Shared Memory Matrix Layout" and
 * "Matrix Descriptor"; the same rule CuTe's make_gmma_desc asserts).
 *
 * In 16-byte units (T = 16 / element bytes elements per unit), with the
 * rows of the operand its M (A) or N (B) index and `swz` the swizzle's row
 * in bytes (16 when unswizzled), one k-step of 32 bytes reads:
 *   K-major:  byte (row % 8) * swz + (row / 8) * SBO + kchunk * (swz > 16 ? 16 : LBO)
 *   MN-major: byte (u % W) * 16 + (u / W) * (swizzled ? LBO : SBO)
 *             + (k % 8) * swz + (k / 8) * (swizzled ? SBO : LBO)
 *             with u = row / T the 16-byte unit along M/N and W = swz / 16
 * plus the element's bytes inside its unit, all added to the start address;
 * the swizzle XORs address bits [4, 4+B) with [7, 7+B) of the final address.
 * A layout is canonical when every element of every k-step is where this
 * formula puts it. */
#include "tilepx.h"

#include <string.h>

static void say(char *why, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void say(char *why, size_t n, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, n, fmt, ap);
	va_end(ap);
}

static bool field_ok(int64_t v) { return v >= 0 && v % 16 == 0 && v < (1 << 18); }

#define OFF(i, j) off[(int64_t)(i) * kext + (j)]

/* a K-major operand: 16-byte runs along K, core matrices of 8 rows rowb
 * apart, the chunks LBO apart (adjacent when swizzled), 8-row groups SBO apart */
static bool derive_k_major(const int64_t *off, int rows, int kext, int es, int swz, int kinst, const char *name, WgDesc *d, char *why,
                           size_t wn, char *note, size_t nn, int T, int rowb)
{
	/* 16-byte runs along K */
	for (int i = 0; i < rows; i++)
		for (int j = 0; j < kext; j++)
			if (OFF(i, j) - OFF(i, j - j % T) != (int64_t)(j % T) * es) {
				say(why, wn, "%s is K-major but element (%d, %d) is %lld bytes from its 16-byte run's start, "
				    "not %d: K must be contiguous in runs of %d elements", name, i, j,
				    (long long)(OFF(i, j) - OFF(i, j - j % T)), (j % T) * es, T);
				return false;
			}
	/* 8 rows of a core matrix, rowb apart */
	for (int i = 0; i < rows; i++)
		for (int j = 0; j < kext; j += T)
			if (OFF(i, j) - OFF(i - i % 8, j) != (int64_t)(i % 8) * rowb) {
				int64_t got = OFF(i - i % 8 + 1, j) - OFF(i - i % 8, j);
				say(why, wn, "rows of %s are %lld bytes apart, but K-major wgmma %s reads the 8 rows of a core "
				    "matrix %d bytes apart", name, (long long)got,
				    swz ? (swz == 128 ? "with the 128-byte swizzle" : swz == 64 ? "with the 64-byte swizzle"
				                                                     : "with the 32-byte swizzle")
				        : "without a swizzle", rowb);
				if (got == 128 || got == 64 || got == 32)
					say(note, nn, "rows of %lld bytes are read with the %lld-byte swizzle: declare the buffer "
					    "with swizzle(%d, %d, 3)%s", (long long)got, (long long)got, es == 1 ? 4 : es == 2 ? 3 : 2,
					    got == 128 ? 3 : got == 64 ? 2 : 1, swz ? "" : " (or a layout whose 8-row x 16-byte "
					    "core matrices are 128 contiguous bytes)");
				else
					say(note, nn, "a K-major tile of %d-byte rows: rows %d bytes apart (a [rows, %d] tile with "
					    "that swizzle, or core matrices of 8 rows x 16 bytes stored contiguously when unswizzled)",
					    rowb, rowb, rowb / es);
				return false;
			}
	/* the 16-byte chunks of a k-step: adjacent inside a swizzle row, LBO apart otherwise */
	d->lbo = swz ? 16 : OFF(0, T) - OFF(0, 0);
	for (int i = 0; i < rows; i++)
		for (int j = 0; j < kext; j += T)
			if (j % kinst && OFF(i, j) - OFF(i, j - T) != d->lbo) {
				say(why, wn, "the 16-byte K chunks of %s (row %d, k %d) are %lld bytes apart; %s", name, i, j,
				    (long long)(OFF(i, j) - OFF(i, j - T)),
				    swz ? "inside a swizzled row they must be adjacent (16 bytes)"
				        : "the descriptor's leading byte offset is one stride for every row");
				return false;
			}
	/* 8-row groups SBO apart */
	d->sbo = rows > 8 ? OFF(8, 0) - OFF(0, 0) : 8 * rowb;
	for (int i = 8; i < rows; i++)
		for (int j = 0; j < kext; j += T)
			if (OFF(i, j) - OFF(i % 8, j) != (int64_t)(i / 8) * d->sbo) {
				say(why, wn, "the 8-row groups of %s are not evenly spaced: rows %d and %d are %lld bytes apart, "
				    "the descriptor's stride byte offset is %lld", name, i % 8, i, (long long)(OFF(i, j) - OFF(i % 8, j)),
				    (long long)d->sbo);
				return false;
			}
	d->lbo_used = !swz;
	d->sbo_used = rows > 8;
	return true;
}

/* an M/N-major operand: 16-byte runs along M/N, a swizzle row's units
 * adjacent, 8 K rows rowb apart, atoms and K groups evenly spaced */
static bool derive_mn_major(const int64_t *off, int rows, int kext, int es, int swz, int kinst, const char *name, WgDesc *d, char *why,
                           size_t wn, char *note, size_t nn, int T, int rowb)
{
	int W = rowb / 16, atom = T * W;
	/* 16-byte runs along M/N */
	for (int i = 0; i < rows; i++)
		for (int j = 0; j < kext; j++)
			if (OFF(i, j) - OFF(i - i % T, j) != (int64_t)(i % T) * es) {
				say(why, wn, "%s is %s-major but element (%d, %d) is %lld bytes from its 16-byte run's start", name,
				    name[0] == 'A' ? "M" : "N", i, j, (long long)(OFF(i, j) - OFF(i - i % T, j)));
				return false;
			}
	/* the units of a swizzle row adjacent */
	for (int i = 0; i < rows; i += T)
		for (int j = 0; j < kext; j++)
			if (OFF(i, j) - OFF(i - i % atom, j) != (int64_t)((i % atom) / T) * 16) {
				say(why, wn, "%s's 16-byte runs along %s are %lld bytes apart; the %d-byte swizzle reads %d of them "
				    "adjacent", name, name[0] == 'A' ? "M" : "N",
				    (long long)(OFF(i - i % atom + T, j) - OFF(i - i % atom, j)), rowb, W);
				say(note, nn, "with this swizzle, %d %s elements are contiguous (one swizzle row)", atom,
				    name[0] == 'A' ? "M" : "N");
				return false;
			}
	/* the 8 K rows of a core matrix rowb apart */
	for (int i = 0; i < rows; i += atom)
		for (int j = 0; j < kext; j++)
			if (OFF(i, j) - OFF(i, j - j % 8) != (int64_t)(j % 8) * rowb) {
				int64_t got = OFF(i, j - j % 8 + 1) - OFF(i, j - j % 8);
				say(why, wn, "K rows of %s are %lld bytes apart, but %s-major wgmma %s reads 8 K rows %d bytes "
				    "apart", name, (long long)got, name[0] == 'A' ? "M" : "N",
				    swz ? "with this swizzle" : "without a swizzle", rowb);
				if (got == 128 || got == 64 || got == 32)
					say(note, nn, "K rows of %lld bytes are read with the %lld-byte swizzle: swizzle(%d, %d, 3)",
					    (long long)got, (long long)got, es == 1 ? 4 : es == 2 ? 3 : 2,
					    got == 128 ? 3 : got == 64 ? 2 : 1);
				return false;
			}
	int64_t astride = rows > atom ? OFF(atom, 0) - OFF(0, 0) : 0;
	int64_t kstride = kinst > 8 ? OFF(0, 8) - OFF(0, 0) : 0;
	for (int i = atom; i < rows; i += T)
		for (int j = 0; j < kext; j++)
			if (OFF(i, j) - OFF(i % atom, j) != (int64_t)(i / atom) * astride) {
				say(why, wn, "the %d-element %s atoms of %s are not evenly spaced (%lld bytes, then %lld)", atom,
				    name[0] == 'A' ? "M" : "N", name, (long long)astride,
				    (long long)(OFF(i, j) - OFF(i % atom, j)));
				return false;
			}
	for (int i = 0; i < rows; i += T)
		for (int j = 8; j < kext; j++)
			if (j % kinst >= 8 && OFF(i, j) - OFF(i, j - 8) != kstride) {
				say(why, wn, "the groups of 8 K rows of %s inside a k-step are %lld bytes apart at row %d, %lld at "
				    "row 0", name, (long long)(OFF(i, j) - OFF(i, j - 8)), i, (long long)kstride);
				return false;
			}
	if (rows <= atom)
		astride = swz ? 0 : 128; /* one atom: the field is not read */
	if (kinst <= 8)
		kstride = 0;
	d->lbo = swz ? astride : kstride;
	d->sbo = swz ? kstride : astride;
	d->lbo_used = swz ? rows > atom : kinst > 8;
	d->sbo_used = swz ? kinst > 8 : rows > atom;
	return true;
}

/* off[i * kext + j]: byte offset of operand element (row i, k j) from the
 * region's first element, before the swizzle */
bool wgmma_derive(const int64_t *off, int rows, int kext, int es, int swz, int kinst, const char *name, WgDesc *d,
                  char *why, size_t wn, char *note, size_t nn)
{
	memset(d, 0, sizeof *d);
	note[0] = 0;
	int T = 16 / es;
	int rowb = swz ? swz : 16;
	d->swz = swz;
	d->mode = swz == 128 ? 1 : swz == 64 ? 2 : swz == 32 ? 3 : 0;
	d->ksteps = kext / kinst;
	int64_t dk = OFF(0, 1), dm = OFF(1, 0);
	if (dk == es) {
		d->mn_major = false;
	} else if (dm == es) {
		d->mn_major = true;
	} else {
		say(why, wn, "%s is neither K-major nor %s-major: consecutive K elements are %lld bytes apart and consecutive "
		    "rows %lld bytes; wgmma reads 16-byte runs along one of them", name, name[0] == 'A' ? "M" : "N",
		    (long long)dk, (long long)dm);
		return false;
	}
	for (int s = 0; s < d->ksteps; s++) {
		d->step_off[s] = OFF(0, s * kinst);
		if (d->step_off[s] % 16) {
			say(why, wn, "k-step %d of %s starts %lld bytes into the region, not on 16 bytes", s, name,
			    (long long)d->step_off[s]);
			return false;
		}
	}
	if (!d->mn_major ? !derive_k_major(off, rows, kext, es, swz, kinst, name, d, why, wn, note, nn, T, rowb)
	                 : !derive_mn_major(off, rows, kext, es, swz, kinst, name, d, why, wn, note, nn, T, rowb))
		return false;
#undef OFF
	if (!field_ok(d->lbo) || !field_ok(d->sbo)) {
		bool l = !field_ok(d->lbo);
		say(why, wn, "%s's %s byte offset is %lld: a descriptor holds multiples of 16 in 0..262128", name,
		    l ? "leading" : "stride", (long long)(l ? d->lbo : d->sbo));
		return false;
	}
	return true;
}

uint64_t wgmma_desc_encode(uint32_t start, const WgDesc *d)
{
	return (uint64_t)((start & 0x3FFFF) >> 4) | (uint64_t)(d->lbo >> 4) << 16 | (uint64_t)(d->sbo >> 4) << 32 |
	       (uint64_t)d->mode << 62;
}
