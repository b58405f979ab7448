/* bench/gemm_host.h: the host side of bench/gemm_bench.c, which needs no GPU
 * and no CUDA header, so tests/unit/test_gemm_host.c checks it in `make test`:
 * 16-bit and e4m3 float conversions (round to nearest even, as cvt.rn), the seeded
 * data, the dense host GEMM, and reading a kernel's A, B, C params (dtypes,
 * shapes, B's orientation) from its .tile declarations.
 *
 * Why read declarations: the bench was written when the C API's launch
 * facts (grid, scalars, tensor maps) had no param's dtype or shape (the
 * record's tilepx_param has them now: python/tilepx checks against them),
 * and `explain --json` has records per copy and per launch only. The bench reads
 * the `param` lines of a program tilepx has already compiled (so they are
 * well formed) and cross-checks their count with tilepx_launches(). */
#ifndef GEMM_HOST_H
#define GEMM_HOST_H

#include <ctype.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* GB_E4M3: FP8 (sign, 4 exponent bits of bias 7, 3 mantissa bits; no
 * infinities, S.1111.111 is NaN), an input type only */
typedef enum gb_dtype { GB_NONE, GB_F16, GB_BF16, GB_F32, GB_E4M3 } gb_dtype;

static inline gb_dtype gb_dtype_of(const char *s)
{
	return !strcmp(s, "f16")    ? GB_F16
	       : !strcmp(s, "bf16") ? GB_BF16
	       : !strcmp(s, "f32")  ? GB_F32
	       : !strcmp(s, "e4m3") ? GB_E4M3
	                            : GB_NONE;
}

static inline const char *gb_dtype_name(gb_dtype t)
{
	return t == GB_F16 ? "f16" : t == GB_BF16 ? "bf16" : t == GB_F32 ? "f32" : t == GB_E4M3 ? "e4m3" : "?";
}

static inline int gb_dtype_bytes(gb_dtype t)
{
	return t == GB_F32 ? 4 : t == GB_E4M3 ? 1 : 2;
}

static inline uint32_t gb_bits(float f)
{
	uint32_t u;
	memcpy(&u, &f, 4);
	return u;
}

static inline float gb_float(uint32_t u)
{
	float f;
	memcpy(&f, &u, 4);
	return f;
}

static inline uint16_t gb_f32_to_bf16(float f)
{
	uint32_t u = gb_bits(f);
	if ((u & 0x7fffffffu) > 0x7f800000u)
		return (uint16_t)((u >> 16) | 0x40); /* a quiet NaN */
	u += 0x7fffu + ((u >> 16) & 1);          /* round to nearest, ties to even */
	return (uint16_t)(u >> 16);
}

static inline float gb_bf16_to_f32(uint16_t h)
{
	return gb_float((uint32_t)h << 16);
}

/* f32 -> f16, round to nearest even, subnormals and overflow to infinity */
static inline uint16_t gb_f32_to_f16(float f)
{
	uint32_t u = gb_bits(f), sign = (u >> 16) & 0x8000u;
	uint32_t a = u & 0x7fffffffu;
	if (a > 0x7f800000u)
		return (uint16_t)(sign | 0x7e00u);
	if (a >= 0x477ff000u) /* 65520 and up round to infinity */
		return (uint16_t)(sign | 0x7c00u);
	if (a < 0x38800000u) { /* below 2^-14: a subnormal (or zero) of q units of 2^-24 */
		uint32_t E = a >> 23, m24 = (a & 0x7fffffu) | 0x800000u, shift = 126 - E; /* value = m24 * 2^-shift units */
		if (E == 0 || shift >= 32)
			return (uint16_t)sign;
		uint32_t q = m24 >> shift, rest = m24 & ((1u << shift) - 1), half = 1u << (shift - 1);
		if (rest > half || (rest == half && (q & 1)))
			q++; /* 1024 is the smallest normal: right */
		return (uint16_t)(sign | q);
	}
	uint32_t e = (a >> 23) - 112, m = a & 0x7fffffu;
	uint32_t h = (e << 10) | (m >> 13), rest = m & 0x1fffu;
	if (rest > 0x1000u || (rest == 0x1000u && (h & 1)))
		h++; /* a carry into the exponent is right, up to infinity */
	return (uint16_t)(sign | h);
}

static inline float gb_f16_to_f32(uint16_t h)
{
	uint32_t sign = (uint32_t)(h >> 15) << 31, e = (h >> 10) & 31, m = h & 1023;
	if (e == 0)
		return gb_float(sign | gb_bits((float)m / 16777216.0f));
	if (e == 31)
		return gb_float(sign | 0x7f800000u | (m << 13));
	return gb_float(sign | ((e + 112) << 23) | (m << 13));
}

static inline float gb_e4m3_to_f32(uint8_t v)
{
	uint32_t e = (v >> 3) & 15, m = v & 7;
	if ((v & 0x7f) == 0x7f)
		return gb_float(0x7fc00000u | (uint32_t)(v >> 7) << 31);
	float mag = e ? (float)(8 + m) * gb_float((e + 117) << 23) : (float)m * 0x1p-9f; /* (8 + m) 2^(e-7-3) */
	return v & 0x80 ? -mag : mag;
}

/* f32 -> e4m3, round to nearest even; beyond 448 (the largest value)
 * saturates to +-448 (cvt.rn.satfinite), NaN to NaN */
static inline uint8_t gb_f32_to_e4m3(float f)
{
	uint32_t u = gb_bits(f), a = u & 0x7fffffffu;
	uint8_t sign = (uint8_t)(u >> 31 << 7);
	if (a > 0x7f800000u)
		return sign | 0x7f;
	if (a >= 0x43e00000u) /* 448 and up */
		return sign | 0x7e;
	float x = gb_float(a);
	/* the unit of the value's binade: 2^-9 below 2^-6 (subnormals), else 2^(e-3) */
	int e = (int)(a >> 23) - 127;
	float unit = e < -6 ? 0x1p-9f : gb_float((uint32_t)(e - 3 + 127) << 23);
	float q = x / unit, fl = (float)(int)q, rest = q - fl; /* exact: q < 16 */
	int n = (int)fl + (rest > 0.5f || (rest == 0.5f && ((int)fl & 1)));
	/* n units of `unit`: n = 16 carries into the next binade (n / 2 of twice the unit) */
	int be = e < -6 ? -6 : e;
	if (n == 16) {
		n = 8;
		be++;
	}
	if (n < 8) /* a subnormal (or zero): be is -6 */
		return sign | (uint8_t)n;
	uint8_t bits = (uint8_t)(((be + 7) << 3) | (n - 8));
	return sign | (bits > 0x7e ? 0x7e : bits);
}

static inline uint16_t gb_to_16(float f, gb_dtype t)
{
	return t == GB_BF16 ? gb_f32_to_bf16(f) : t == GB_E4M3 ? gb_f32_to_e4m3(f) : gb_f32_to_f16(f);
}

static inline float gb_from_16(uint16_t h, gb_dtype t)
{
	return t == GB_BF16 ? gb_bf16_to_f32(h) : t == GB_E4M3 ? gb_e4m3_to_f32((uint8_t)h) : gb_f16_to_f32(h);
}

/* splitmix64: the seeded stream the data comes from */
static inline uint64_t gb_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* small integers: |a*b| <= 4, so a sum over K < 2^22 terms stays below 2^24
 * and every partial sum is exact in f32, in any order */
#define GB_INT_MAX 2
#define GB_INT_K_MAX (1 << 22)
/* FP8 GEMMs on Hopper keep fewer accumulator bits than f32 (the tensor core
 * aligns the products to the accumulator's exponent; DeepSeek-V3's report
 * measures about 14 bits): integer sums stay exact while |sum| <= 4 K is
 * well inside that, K <= 2048 (|sum| <= 2^13) */
#define GB_FP8_INT_K_MAX 2048

/* n elements of dtype t (f16, bf16 or e4m3; an e4m3 in the low byte):
 * uniform in [-1, 1] before rounding to t (random: finite, e4m3 too), or
 * integers in [-2, 2] (exact); stream picks A (0) or B (1) */
static inline void gb_fill(uint16_t *out, size_t n, gb_dtype t, int integers, uint64_t seed, int stream)
{
	uint64_t s = seed * 2 + (uint64_t)stream;
	gb_next(&s);
	for (size_t i = 0; i < n; i++) {
		uint64_t r = gb_next(&s);
		float v = integers ? (float)((int)(r % (2 * GB_INT_MAX + 1)) - GB_INT_MAX)
		                   : (float)((double)(r >> 40) / 8388608.0 - 1.0); /* 24 bits: k / 2^23 - 1 */
		out[i] = gb_to_16(v, t);
	}
}

typedef struct gb_gemm_job {
	const float *a, *b; /* A [M, K]; B [K, N] (b_nk 0) or [N, K] (b_nk 1), decoded */
	double *c;          /* C [M, N] */
	long long r0, r1, N, K;
	int b_nk;
} gb_gemm_job;

/* rows [r0, r1): each element summed in double, in k order (exact for the
 * integer data; the random data's reference for small sizes) */
static inline void *gb_gemm_rows(void *arg)
{
	const gb_gemm_job *g = arg;
	for (long long i = g->r0; i < g->r1; i++)
		for (long long j = 0; j < g->N; j++) {
			double s = 0;
			for (long long k = 0; k < g->K; k++)
				s += (double)g->a[i * g->K + k] * (double)(g->b_nk ? g->b[j * g->K + k] : g->b[k * g->N + j]);
			g->c[i * g->N + j] = s;
		}
	return NULL;
}

/* C = A B on nthreads threads (1: this one) */
static inline void gb_host_gemm(const float *a, const float *b, double *c, long long M, long long N, long long K,
                                int b_nk, int nthreads)
{
	enum { MAXT = 64 };
	pthread_t th[MAXT];
	gb_gemm_job job[MAXT];
	if (nthreads > MAXT)
		nthreads = MAXT;
	if (nthreads < 1 || M < nthreads)
		nthreads = 1;
	int started = 0;
	for (int t = 1; t < nthreads; t++) {
		job[t] = (gb_gemm_job){a, b, c, M * t / nthreads, M * (t + 1) / nthreads, N, K, b_nk};
		if (pthread_create(&th[t], NULL, gb_gemm_rows, &job[t]) != 0)
			break;
		started = t;
	}
	/* this thread: the first part and whatever a failed start left */
	gb_gemm_job first = {a, b, c, 0, M / nthreads, N, K, b_nk};
	gb_gemm_rows(&first);
	gb_gemm_job rest = {a, b, c, M * (started + 1) / nthreads, M, N, K, b_nk};
	if (started + 1 < nthreads)
		gb_gemm_rows(&rest);
	for (int t = 1; t <= started; t++)
		pthread_join(th[t], NULL);
}

/* one `param` declaration of the kernel */
typedef struct gb_param {
	char name[64];
	char dtype[16];
	int scalar;             /* u32/i32/u64/i64 without a shape */
	int rank;               /* 0 for a scalar */
	char dim[2][64];        /* each a decimal constant or a scalar's name */
	int colmajor, unusual;  /* unusual: a layout, storage or ld the bench does not model */
	int pointer_index;      /* its place among the kernel's pointer params */
} gb_param;

typedef struct gb_kernel {
	char name[128];
	int nparams, npointers;
	gb_param p[64];
} gb_kernel;

static inline const char *gb_word(const char *s, const char *end, char *out, size_t n)
{
	while (s < end && isspace((unsigned char)*s))
		s++;
	size_t k = 0;
	while (s < end && !isspace((unsigned char)*s) && *s != '[' && *s != ']' && *s != ',') {
		if (k + 1 < n)
			out[k++] = *s;
		s++;
	}
	out[k] = 0;
	return s;
}

/* the params of kernel `want` (NULL or "": the first kernel) of a program
 * tilepx accepted; 0 with why when there is no such kernel */
static inline int gb_read_kernel(const char *src, size_t len, const char *want, gb_kernel *out, char *why, size_t nwhy)
{
	memset(out, 0, sizeof *out);
	int inside = 0, found = 0;
	const char *end = src + len;
	for (const char *line = src; line < end;) {
		const char *eol = memchr(line, '\n', (size_t)(end - line));
		if (!eol)
			eol = end;
		const char *hash = memchr(line, '#', (size_t)(eol - line));
		const char *stop = hash ? hash : eol;
		char w[128], name[128];
		const char *s = gb_word(line, stop, w, sizeof w);
		if (!strcmp(w, "kernel") || !strcmp(w, "func")) {
			if (inside)
				break; /* the wanted kernel ended */
			gb_word(s, stop, name, sizeof name);
			if (!strcmp(w, "kernel") && (!want || !*want || !strcmp(want, name))) {
				inside = found = 1;
				snprintf(out->name, sizeof out->name, "%s", name);
			}
		} else if (inside && !strcmp(w, "param") && out->nparams < 64) {
			gb_param *p = &out->p[out->nparams++];
			s = gb_word(s, stop, p->name, sizeof p->name);
			s = gb_word(s, stop, p->dtype, sizeof p->dtype);
			while (s < stop && isspace((unsigned char)*s))
				s++;
			if (s < stop && *s == '[') {
				s++;
				while (s < stop && *s != ']') {
					char d[64];
					s = gb_word(s, stop, d, sizeof d);
					if (p->rank < 2)
						snprintf(p->dim[p->rank], sizeof p->dim[0], "%s", d);
					p->rank++;
					while (s < stop && (isspace((unsigned char)*s) || *s == ','))
						s++;
				}
				if (s < stop)
					s++;
			}
			for (;;) {
				s = gb_word(s, stop, w, sizeof w);
				if (!*w)
					break;
				if (!strcmp(w, "colmajor"))
					p->colmajor = 1;
				else if (!strcmp(w, "layout") || !strcmp(w, "storage") || !strcmp(w, "ld"))
					p->unusual = 1;
			}
			p->scalar = p->rank == 0;
			p->pointer_index = p->scalar ? -1 : out->npointers++;
		}
		line = eol + 1;
	}
	if (!found)
		snprintf(why, nwhy, want && *want ? "the program has no kernel '%s'" : "the program has no kernel", want);
	return found;
}

static inline const gb_param *gb_find(const gb_kernel *k, const char *name)
{
	for (int i = 0; i < k->nparams; i++)
		if (!strcmp(k->p[i].name, name))
			return &k->p[i];
	return NULL;
}

static inline int gb_is_number(const char *d)
{
	if (!*d)
		return 0;
	for (; *d; d++)
		if (!isdigit((unsigned char)*d))
			return 0;
	return 1;
}

/* what a kernel computes as C = A B, read from its declarations */
typedef struct gb_roles {
	const gb_param *a, *b, *c;
	gb_dtype ab, out;
	const char *m, *n, *k; /* the dims: constants or scalar names */
	int b_nk;              /* B is stored [N, K] (K-major) */
	int b_ambiguous;       /* K and N are the same dim: B's orientation is not declared */
} gb_roles;

/* A [M, K] row-major, C [M, N] row-major, B [K, N] or [N, K] row-major (or
 * the other declared colmajor); dtypes f16/bf16/e4m3 in, f16/bf16/f32 out */
static inline int gb_roles_of(const gb_kernel *k, const char *an, const char *bn, const char *cn, gb_roles *r,
                              char *why, size_t nwhy)
{
	memset(r, 0, sizeof *r);
	r->a = gb_find(k, an);
	r->b = gb_find(k, bn);
	r->c = gb_find(k, cn);
	if (!r->a || !r->b || !r->c) {
		snprintf(why, nwhy, "kernel %s has no param %s", k->name, !r->a ? an : !r->b ? bn : cn);
		return 0;
	}
	const gb_param *ps[3] = {r->a, r->b, r->c};
	for (int i = 0; i < 3; i++)
		if (ps[i]->rank != 2 || ps[i]->unusual) {
			snprintf(why, nwhy, "param %s is not a dense rank-2 matrix (the bench models no layout, storage or ld)",
			         ps[i]->name);
			return 0;
		}
	if (r->a->colmajor || r->c->colmajor) {
		snprintf(why, nwhy, "param %s is colmajor: the bench measures A K-major and C row-major",
		         r->a->colmajor ? r->a->name : r->c->name);
		return 0;
	}
	r->ab = gb_dtype_of(r->a->dtype);
	r->out = gb_dtype_of(r->c->dtype);
	if (r->ab == GB_NONE || r->ab == GB_F32 || strcmp(r->a->dtype, r->b->dtype) || r->out == GB_NONE ||
	    r->out == GB_E4M3) {
		snprintf(why, nwhy, "dtypes %s x %s -> %s: the bench runs f16, bf16 or e4m3 inputs into f16, bf16 or f32",
		         r->a->dtype, r->b->dtype, r->c->dtype);
		return 0;
	}
	r->m = r->c->dim[0];
	r->n = r->c->dim[1];
	r->k = r->a->dim[1];
	if (strcmp(r->a->dim[0], r->m)) {
		snprintf(why, nwhy, "A's rows (%s) are not C's rows (%s)", r->a->dim[0], r->m);
		return 0;
	}
	/* B's stored [rows, cols]: a colmajor [X, Y] is stored [Y, X] */
	const char *b0 = r->b->colmajor ? r->b->dim[1] : r->b->dim[0], *b1 = r->b->colmajor ? r->b->dim[0] : r->b->dim[1];
	int kn = !strcmp(b0, r->k) && !strcmp(b1, r->n), nk = !strcmp(b0, r->n) && !strcmp(b1, r->k);
	if (!kn && !nk) {
		snprintf(why, nwhy, "B [%s, %s] is neither [K, N] = [%s, %s] nor [N, K]", r->b->dim[0], r->b->dim[1], r->k, r->n);
		return 0;
	}
	r->b_nk = !kn;
	r->b_ambiguous = kn && nk;
	return 1;
}

#endif
