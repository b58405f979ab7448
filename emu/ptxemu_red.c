/* ptxemu: red.global (the atomics of red.add / red.max) and the global
 * memory they reach. red.global.add.f32 (and .v2/.v4: one atomic per
 * element) rounds to nearest even and flushes subnormal inputs and results
 * to sign-preserving zero, a NaN result the canonical NaN; .noftz.f16x2
 * and .bf16x2 (and their .v2/.v4) add each half in its type, subnormals
 * kept, rounded to nearest even; max.s32 and min.u32 compare the 32-bit
 * patterns. The emulator runs the CTAs one
 * cluster after another, so the atomics land in that order.
 *
 * Races: atomics to one word from different threads do not race with each
 * other, but a plain access (ld, st) to a word that another thread reduces
 * into does, in either order: nothing orders two CTAs' accesses within a
 * launch. In a program with red instructions every tracked global word
 * keeps its state for the launch: untouched, the one thread that reached
 * it (4 g + 1 reduced, + 2 plainly accessed, both bits possible), or
 * reduced by several threads and nothing else (RED_MANY). A plain access
 * remembers its last thread only, so a plain access of a third thread in
 * between may go unseen; every race it reports is one. */
#define _POSIX_C_SOURCE 200809L
#include "ptxemu_machine.h"
#include "ptxemu_float.h"
#include "ptxemu_cvt.h"

enum { UNTOUCHED = -1, RED_MANY = -2 };

/* the .tile name of pointer param i (param_index order, as mem() numbers them) */
static const char *param_name(const Machine *m, uint64_t i)
{
	for (size_t b = 0; b < m->k->nbufs; b++)
		if (m->k->bufs[b]->mem == MEM_GLOBAL && (uint64_t)m->k->bufs[b]->param_index == i)
			return m->k->bufs[b]->name;
	return m->p->params[i];
}

/* the thread's index over the launch: its cluster's first CTA, then its rank and place */
static int64_t launch_tid(const Machine *m, int tid)
{
	int64_t cluster = m->base_y * m->k->grid + m->base_x;
	return cluster * m->threads * m->nranks + tid;
}

static int64_t *word_state(Machine *m, uint64_t param, uint64_t off)
{
	if (!m->gshadow && !(m->gshadow = calloc((size_t)m->p->nparams, sizeof *m->gshadow)))
		return NULL;
	int64_t **w = &m->gshadow[param];
	size_t n = m->param_bytes[param] / 4 + 1;
	if (!*w) {
		if (!(*w = malloc(n * sizeof **w)))
			return NULL;
		for (size_t i = 0; i < n; i++)
			(*w)[i] = UNTOUCHED;
	}
	return &(*w)[off / 4];
}

bool red_global_access(Machine *m, uint64_t param, uint64_t off, int bytes, bool atomic, int tid)
{
	int64_t g = launch_tid(m, tid), bit = atomic ? 1 : 2;
	for (uint64_t a = off & ~3ull; a < off + (uint64_t)bytes; a += 4) {
		int64_t *s = word_state(m, param, a);
		if (!s)
			return true;
		int64_t who = *s >= 0 ? *s / 4 : -1, had = *s >= 0 ? *s % 4 : 0;
		bool race = atomic ? (*s >= 0 && who != g && (had & 2)) : (*s == RED_MANY || (*s >= 0 && who != g && (had & 1)));
		if (race) {
			snprintf(m->errbuf, sizeof m->errbuf, "race: global memory at %s+%llu is reduced by red.global atomics "
			         "and accessed plainly by another thread (.tile line %d): nothing orders a plain access with "
			         "other threads' atomics within a launch", param_name(m, param), (unsigned long long)a,
			         m->acc_line);
			m->err = m->errbuf;
			return false;
		}
		if (*s == UNTOUCHED || (who != g && !atomic))
			*s = 4 * g + bit;
		else if (who == g)
			*s |= bit;
		else
			*s = RED_MANY;
	}
	return true;
}

static uint32_t flush(uint32_t x) { return (x & 0x7f800000u) ? x : x & 0x80000000u; }

static uint32_t red_add_f32(uint32_t a, uint32_t b)
{
	return flush(ptxemu_float_exec(ptxemu_float_decode("add.rn.f32"), flush(a), flush(b), 0));
}

/* one f16 or bf16 half of a .noftz x2 add: both widened exactly, added in
 * f32 (exact, or within the type's half unit: the one rounding to the type
 * is then the correctly rounded sum), rounded to nearest even */
static uint16_t red_add_half(uint16_t a, uint16_t b, bool bf)
{
	uint32_t fa = bf ? (uint32_t)a << 16 : ptxemu_cvt_f32_f16(a), fb = bf ? (uint32_t)b << 16 : ptxemu_cvt_f32_f16(b);
	return ptxemu_cvt_rn_half(ptxemu_float_exec(ptxemu_float_decode("add.rn.f32"), fa, fb, 0), bf);
}

static uint32_t red_add_x2(uint32_t a, uint32_t b, bool bf)
{
	return (uint32_t)red_add_half((uint16_t)a, (uint16_t)b, bf) |
	       (uint32_t)red_add_half((uint16_t)(a >> 16), (uint16_t)(b >> 16), bf) << 16;
}

void exec_red(Machine *m, Thread *t, Ins *in)
{
	const char *op = in->op;
	int n = strstr(op, ".v4.") ? 4 : strstr(op, ".v2.") ? 2 : 1;
	bool bf2 = strstr(op, ".bf16x2") != NULL, h2 = bf2 || strstr(op, ".f16x2") != NULL;
	bool add = strstr(op, ".add.") && (strstr(op, ".f32") || h2), max = strstr(op, ".max.s32") != NULL,
	     min = strstr(op, ".min.u32") != NULL;
	if (!strstr(op, ".global.") || (!add && !max && !min) || in->nops != 1 + n) {
		snprintf(m->errbuf, sizeof m->errbuf, "unsupported instruction '%s'", op);
		m->err = m->errbuf;
		return;
	}
	track(m, t, in, true); /* its line, for a report; the access is checked as an atomic below */
	m->acc_warp = -1;
	uint64_t a = addr(m, t, in->ops[0]);
	unsigned char *p = mem(m, false, a, 4 * n);
	if (!p || !red_global_access(m, (a >> 40) - 1, a & ((1ull << 40) - 1), 4 * n, true, (int)(t - m->t)))
		return;
	for (int i = 0; i < n; i++) {
		uint32_t old, v = (uint32_t)val(m, t, in->ops[1 + i]);
		memcpy(&old, p + 4 * i, 4);
		uint32_t r = h2 ? red_add_x2(old, v, bf2) : add ? red_add_f32(old, v) : max ? ((int32_t)v > (int32_t)old ? v : old) : (v < old ? v : old);
		memcpy(p + 4 * i, &r, 4);
	}
}

void red_free(Machine *m)
{
	for (int i = 0; m->gshadow && i < m->p->nparams; i++)
		free(m->gshadow[i]);
	free(m->gshadow);
	m->gshadow = NULL;
}
