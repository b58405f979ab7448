/* `# harness: --attention` (ptxemu): the CPU reference's O and LSE of an
 * attention kernel against attention computed here in double from the
 * inputs, so the tests check the program's mathematics too, not only that
 * the emitted code means what the program says. */
#include "runcore.h"
#include "ptxemu_half.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct Attn {
	const RunParams *rp;
	int q, k, v, o, lse;  /* param indices */
	int64_t BH, S, D;
	int64_t G; /* query heads per K/V head: Q, O [BH, G, S, D] and LSE [BH, G, S] (GQA); 1 otherwise */
	bool rank3, bf16, causal;
	double scale;
	int show; /* mismatches to print */
} Attn;

static int param_named(const RunParams *rp, const char *n)
{
	for (int i = 0; i < rp->n; i++)
		if (!strcmp(rp->buf[i]->name, n))
			return i;
	return -1;
}

static bool scalar_named(const Kernel *k, const char *n, int64_t *v)
{
	for (size_t i = 0; k->bound_vals && i < k->nscalars; i++)
		if (!strcmp(k->scalars[i].name, n)) {
			*v = k->bound_vals[i];
			return true;
		}
	return false;
}

/* element [h, r, d] of a [BH, S, D] or [S, BH * D] tensor (h a query head
 * of [BH, G, S, D] when kv is false, or the K/V head of query head h) */
static int64_t at(const Attn *a, int64_t h, int64_t r, int64_t d, bool kv)
{
	if (kv)
		h /= a->G;
	return a->rank3 ? (h * a->S + r) * a->D + d : r * a->BH * a->D + h * a->D + d;
}

static double half(const Attn *a, int p, int64_t i, bool want)
{
	uint16_t h;
	memcpy(&h, (want ? a->rp->want : a->rp->init)[p] + 2 * i, 2);
	return emu_half_to_f32(h, a->bf16);
}

/* one query row: its errors against the exact O and LSE, counted in *bad */
static void check_row(const Attn *a, int64_t h, int64_t i, double *p, int64_t *bad)
{
	int64_t n = a->causal ? i + 1 : a->S;
	double m = -INFINITY, l = 0;
	for (int64_t j = 0; j < n; j++) {
		double s = 0;
		for (int64_t d = 0; d < a->D; d++)
			s += half(a, a->q, at(a, h, i, d, false), false) * half(a, a->k, at(a, h, j, d, true), false);
		p[j] = s * a->scale;
		m = p[j] > m ? p[j] : m;
	}
	for (int64_t j = 0; j < n; j++)
		l += p[j] = exp(p[j] - m);
	/* P rounded to 16 bits and O to its type: a few units of the type's last place */
	double tol = a->bf16 ? 0x1p-6 : 0x1p-9;
	for (int64_t d = 0; d < a->D; d++) {
		double o = 0;
		for (int64_t j = 0; j < n; j++)
			o += p[j] * half(a, a->v, at(a, h, j, d, true), false);
		o /= l;
		double got = half(a, a->o, at(a, h, i, d, false), true);
		if (!(fabs(got - o) <= tol * (1 + fabs(o))) && (*bad)++ < a->show)
			printf("  O[%lld, %lld, %lld]: attention gives %.6g, the program %.6g\n", (long long)h, (long long)i,
			       (long long)d, o, got);
	}
	float lse;
	memcpy(&lse, a->rp->want[a->lse] + 4 * (h * a->S + i), 4);
	double want = m + log(l);
	if (!(fabs(lse - want) <= 0x1p-14 * (1 + fabs(want))) && (*bad)++ < a->show)
		printf("  LSE[%lld, %lld]: attention gives %.8g, the program %.8g\n", (long long)h, (long long)i, want,
		       (double)lse);
}

const char *rc_attention_check(const Kernel *k, const RunParams *rp, int show, int64_t *bad)
{
	Attn a = {.rp = rp, .show = show, .q = param_named(rp, "Q"), .k = param_named(rp, "K"), .v = param_named(rp, "V"),
	          .o = param_named(rp, "O"), .lse = param_named(rp, "LSE"), .causal = strstr(k->name, "_causal") != NULL};
	int64_t sc = 0;
	if (a.q < 0 || a.k < 0 || a.v < 0 || a.o < 0 || a.lse < 0 || !scalar_named(k, "BH", &a.BH) ||
	    !scalar_named(k, "S", &a.S) || !scalar_named(k, "scale", &sc))
		return "--attention needs params Q, K, V, O, LSE and scalars BH, S, scale";
	const Buffer *Q = rp->buf[a.q];
	uint32_t bits = (uint32_t)sc;
	float f;
	memcpy(&f, &bits, 4);
	a.scale = f;
	a.bf16 = Q->dt == DT_BF16;
	a.rank3 = Q->ndim >= 3;
	a.G = Q->ndim == 4 ? Q->shape[1] : 1;
	a.D = a.rank3 ? Q->shape[Q->ndim - 1] : a.BH ? Q->shape[1] / a.BH : 0;
	if ((Q->dt != DT_BF16 && Q->dt != DT_F16) || Q->ndim < 2 || Q->ndim > 4 || a.D <= 0 || a.G < 1)
		return "--attention needs Q f16 or bf16, [BH, S, D], [BH, G, S, D] (G query heads per K/V head) or "
		       "[S, BH * D]";
	double *p = malloc(sizeof(double) * (size_t)(a.S ? a.S : 1));
	if (!p)
		return "out of memory for the host attention";
	*bad = 0;
	for (int64_t h = 0; h < a.BH * a.G; h++) /* every query head */
		for (int64_t i = 0; i < a.S; i++)
			check_row(&a, h, i, p, bad);
	free(p);
	return NULL;
}
