/* ptxemu: wgmma.mma_async from its descriptors, bit for bit on data whose
 * products and sums are exact (small integers).
 *
 * Descriptor (PTX ISA, "Matrix Descriptor Format"): bits 0-13 start address
 * >> 4, 16-29 leading byte offset >> 4, 32-45 stride byte offset >> 4, 49-51
 * base offset (0 here; others are refused), 62-63 layout type: 0 none, 1
 * 128-byte, 2 64-byte, 3 32-byte swizzle. The operand is read in core
 * matrices of 8 rows x 16 bytes ("Shared Memory Matrix Layout"): for a
 * K-major operand row r's 16-byte chunk c of the k-step sits at
 *   start + (r % 8) * S + (r / 8) * SBO + c * (swizzled ? 16 : LBO)
 * (S the swizzle's row, 16 without one); MN-major, 16-byte unit u along M/N
 * and K row k:
 *   start + (u % W) * 16 + (u / W) * (swizzled ? LBO : SBO) + (k % 8) * S
 *   + (k / 8) * (swizzled ? SBO : LBO)                     (W = S / 16)
 * and the swizzle XORs address bits [4, 4+B) with [7, 7+B) of that final
 * address (measured on the H100: a start part-way into a pattern reads the
 * absolutely swizzled data).
 * Accumulator D (m64nN): thread t holds element i at row 16 (t / 32) +
 * (t % 32) / 4 + 8 ((i % 4) / 2), column 8 (i / 4) + 2 (t % 4) + i % 2; two
 * f16 elements to a register, the even one low. */
#include "ptxemu_wgmma.h"
#include "ptxemu_mma.h"
#include "ptxemu_half.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int type_of(const char *s, int n)
{
	static const struct { const char *name; int t; } ty[] = {
		{"f16", WG_F16}, {"bf16", WG_BF16}, {"tf32", WG_TF32}, {"e4m3", WG_E4M3}, {"e5m2", WG_E5M2}, {"f32", WG_F32},
	};
	for (size_t i = 0; i < sizeof ty / sizeof ty[0]; i++)
		if ((int)strlen(ty[i].name) == n && !strncmp(s, ty[i].name, (size_t)n))
			return ty[i].t;
	return 0;
}

bool ptxemu_wgmma_parse(const char *op, WgmmaInsn *w)
{
	const char *pre = "wgmma.mma_async.sync.aligned.m64n";
	memset(w, 0, sizeof *w);
	if (strncmp(op, pre, strlen(pre)))
		return false;
	const char *p = op + strlen(pre);
	char *e;
	w->n = (int)strtol(p, &e, 10);
	if (*e != 'k')
		return false;
	w->k = (int)strtol(e + 1, &e, 10);
	int *ts[3] = {&w->dt, &w->at, &w->bt};
	for (int i = 0; i < 3; i++) {
		if (*e != '.')
			return false;
		const char *s = e + 1, *d = strchr(s, '.');
		int n = d ? (int)(d - s) : (int)strlen(s);
		*ts[i] = type_of(s, n);
		if (!*ts[i])
			return false;
		e = (char *)s + n;
	}
	w->nregs = w->dt == WG_F32 ? w->n / 2 : w->n / 4;
	return w->n >= 8 && w->n <= 256 && w->n % 8 == 0 && *e == 0;
}

static int es_of(int t) { return t == WG_F16 || t == WG_BF16 ? 2 : t == WG_TF32 || t == WG_F32 ? 4 : 1; }

uint64_t ptxemu_wgmma_addr(uint64_t desc, bool mn_major, int es, int row, int k)
{
	uint64_t start = (desc & 0x3FFF) << 4, lbo = ((desc >> 16) & 0x3FFF) << 4, sbo = ((desc >> 32) & 0x3FFF) << 4;
	int mode = (int)(desc >> 62), B = mode == 1 ? 3 : mode == 2 ? 2 : mode == 3 ? 1 : 0;
	uint64_t S = B ? 16u << B : 16, W = S / 16, T = 16 / (uint64_t)es, a;
	if (!mn_major) {
		uint64_t c = (uint64_t)k / T, in = (uint64_t)k % T * (uint64_t)es;
		a = start + (uint64_t)(row % 8) * S + (uint64_t)(row / 8) * sbo + c * (B ? 16 : lbo) + in;
	} else {
		uint64_t u = (uint64_t)row / T, in = (uint64_t)row % T * (uint64_t)es;
		a = start + (u % W) * 16 + (u / W) * (B ? lbo : sbo) + in + (uint64_t)(k % 8) * S +
		    (uint64_t)(k / 8) * (B ? sbo : lbo);
	}
	if (B)
		a ^= ((a >> 7) & ((1u << B) - 1)) << 4;
	return a;
}

/* e4m3 (bias 7, 3 mantissa bits, no infinities, S.1111.111 NaN) and e5m2
 * (bias 15, 2 bits, the top exponent IEEE's infinities and NaNs) */
static float f8(uint8_t v, bool e5)
{
	int mb = e5 ? 2 : 3, bias = e5 ? 15 : 7;
	int e = (v & 0x7f) >> mb, m = v & ((1 << mb) - 1);
	if (e5 ? e == 31 : (v & 0x7f) == 0x7f)
		return e5 && !m ? (v & 0x80 ? -INFINITY : INFINITY) : NAN;
	float f = e ? 1.0f + (float)m / (float)(1 << mb) : (float)m / (float)(1 << mb);
	for (int x = (e ? e : 1) - bias; x > 0; x--)
		f *= 2.0f;
	for (int x = (e ? e : 1) - bias; x < 0; x++)
		f /= 2.0f;
	return v & 0x80 ? -f : f;
}

static float elem(const unsigned char *p, int t)
{
	uint32_t u = 0;
	float f;
	switch (t) {
	case WG_F16: case WG_BF16: {
		uint16_t h;
		memcpy(&h, p, 2);
		return emu_half_to_f32(h, t == WG_BF16);
	}
	case WG_TF32:
		memcpy(&u, p, 4);
		u &= ~0x1fffu;
		memcpy(&f, &u, 4);
		return f;
	default:
		return f8(p[0], t == WG_E5M2);
	}
}

static uint16_t f2h(float f)
{
	uint32_t u;
	memcpy(&u, &f, 4);
	uint32_t sign = (u >> 16) & 0x8000, m = u & 0x7fffff;
	int e = (int)((u >> 23) & 0xff) - 112;
	if (e >= 31)
		return (uint16_t)(sign | 0x7c00);
	if (e <= 0) {
		if (e < -10)
			return (uint16_t)sign;
		m |= 0x800000;
		int sh = 14 - e;
		uint32_t h = m >> sh, rem = m & ((1u << sh) - 1), half = 1u << (sh - 1);
		if (rem > half || (rem == half && (h & 1)))
			h++;
		return (uint16_t)(sign | h);
	}
	uint32_t h = ((uint32_t)e << 10) | (m >> 13), rem = m & 0x1fff;
	if (rem > 0x1000 || (rem == 0x1000 && (h & 1)))
		h++;
	return (uint16_t)(sign | h);
}

/* the RS form's A fragment (PTX ISA, "Register fragment for matrix A"):
 * thread t (w = t / 32, g = (t % 32) / 4, q = t % 4), element i of its words
 *   16-bit: row 16w + g + 8 ((i / 2) % 2), column 2q + i % 2 + 8 (i / 4)
 *   tf32:   row 16w + g + 8 (i % 2),       column q + 4 (i / 2)
 *   8-bit:  row 16w + g + 8 ((i / 4) % 2), column 4q + i % 4 + 16 (i / 8)
 * packed little-endian, 4 / element bytes to a word */
static void frag_a(int es, int t, int i, int *row, int *col)
{
	int w = t / 32, g = (t % 32) / 4, q = t % 4;
	if (es == 2)
		*row = 16 * w + g + 8 * ((i / 2) % 2), *col = 2 * q + i % 2 + 8 * (i / 4);
	else if (es == 4)
		*row = 16 * w + g + 8 * (i % 2), *col = q + 4 * (i / 2);
	else
		*row = 16 * w + g + 8 * ((i / 4) % 2), *col = 4 * q + i % 4 + 16 * (i / 8);
}

const char *ptxemu_wgmma_run(const WgmmaInsn *w, const unsigned char *smem, int64_t bytes, uint32_t (*acc)[128],
                             const uint32_t (*ar)[4])
{
	static const char *oob = "wgmma: a descriptor addresses shared memory out of bounds";
	if ((!ar && (w->da >> 49 & 7)) || (w->db >> 49 & 7))
		return "wgmma: a descriptor with a nonzero base offset (not modeled)";
	int ea = es_of(w->at), eb = es_of(w->bt);
	float *A = malloc(sizeof(float) * 64 * (size_t)w->k), *B = malloc(sizeof(float) * (size_t)w->n * (size_t)w->k);
	const char *err = NULL;
	if (ar)
		for (int t = 0; t < 128; t++)
			for (int i = 0; i < 16 / ea; i++) {
				int row, col;
				frag_a(ea, t, i, &row, &col);
				unsigned char b[4];
				memcpy(b, &ar[t][i * ea / 4], 4);
				A[row * w->k + col] = elem(b + i * ea % 4, w->at);
			}
	for (int r = 0; r < 64 && !err && !ar; r++)
		for (int k = 0; k < w->k; k++) {
			uint64_t a = ptxemu_wgmma_addr(w->da, w->ta, ea, r, k);
			if (a + (uint64_t)ea > (uint64_t)bytes) {
				err = oob;
				break;
			}
			A[r * w->k + k] = elem(smem + a, w->at);
		}
	for (int r = 0; r < w->n && !err; r++)
		for (int k = 0; k < w->k; k++) {
			uint64_t a = ptxemu_wgmma_addr(w->db, w->tb, eb, r, k);
			if (a + (uint64_t)eb > (uint64_t)bytes) {
				err = oob;
				break;
			}
			B[r * w->k + k] = elem(smem + a, w->bt);
		}
	for (int t = 0; t < 128 && !err; t++)
		for (int i = 0; i < w->n / 2; i++) {
			int row = 16 * (t / 32) + (t % 32) / 4 + 8 * ((i % 4) / 2), col = 8 * (i / 4) + 2 * (t % 4) + i % 2;
			float d = 0;
			uint32_t *word = &acc[t][w->dt == WG_F32 ? i : i / 2];
			if (w->scale_d) {
				if (w->dt == WG_F32)
					memcpy(&d, word, 4);
				else
					d = emu_half_to_f32((uint16_t)(*word >> (16 * (i % 2))), false);
			}
			for (int k = 0; k < w->k; k++)
				d += A[row * w->k + k] * B[col * w->k + k];
			if (w->dt == WG_F32) {
				memcpy(word, &d, 4);
			} else {
				int sh = 16 * (i % 2);
				*word = (*word & ~(0xffffu << sh)) | (uint32_t)f2h(d) << sh;
			}
		}
	free(A);
	free(B);
	return err;
}

void ptxemu_wgmma_reads(const WgmmaInsn *w, bool rs, void (*fn)(void *ctx, uint64_t a), void *ctx)
{
	int ea = es_of(w->at), eb = es_of(w->bt);
	/* a piece holds 16 bytes along the contiguous dimension: k when
	 * K-major, the row when MN-major (transposed) */
	for (int r = 0; r < 64 && !rs; r += w->ta ? 16 / ea : 1)
		for (int k = 0; k < w->k; k += w->ta ? 1 : 16 / ea)
			fn(ctx, ptxemu_wgmma_addr(w->da, w->ta, ea, r, k) & ~(uint64_t)15);
	for (int r = 0; r < w->n; r += w->tb ? 16 / eb : 1)
		for (int k = 0; k < w->k; k += w->tb ? 1 : 16 / eb)
			fn(ctx, ptxemu_wgmma_addr(w->db, w->tb, eb, r, k) & ~(uint64_t)15);
}
