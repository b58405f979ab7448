/* The reference's ownership map of local buffers: which thread of its
 * owner instance holds each element and in which register (from ref.c's
 * layout definitions), and set's view of it (set_elem, set_held). */
#include "../tilepx.h"
#include "ref.h"

#include <stdlib.h>

/* which thread of its owner instance holds each element of a local buffer
 * (row-major index) and each replica of it, and in which register: what
 * apply_layout gives, worked out once per kernel run, because a set asks
 * every thread about every element (a division per iter each time) */
typedef struct RefOwnMap {
	const Buffer *b;
	int64_t owner, nrep, regs; /* ref_owner_threads, replica_count, ref_regs_per_thread */
	int64_t *own, *reg;        /* [idx * nrep + rep] */
	int64_t *held, *first;     /* per thread of the owner group (mine), increasing: the elements it holds,
	                            * held[first[mine] .. first[mine + 1]) (set_held; NULL until asked) */
	unsigned char *mem;        /* the buffer's bytes (c->mem) */
} RefOwnMap;

static RefOwnMap *own_map(RefCta *c, const Buffer *b)
{
	if (c->own_last && c->own_last->b == b && c->own_last->mem == c->mem[bidx(c->k, b)])
		return c->own_last;
	size_t bi = bidx(c->k, b);
	if (c->own && c->own[bi]) {
		c->own[bi]->mem = c->mem[bi];
		return c->own_last = c->own[bi];
	}
	if (!c->own && !(c->own = calloc(c->k->nbufs ? c->k->nbufs : 1, sizeof *c->own)))
		return NULL;
	int64_t n = 1, nrep = replica_count(b), at[AX_COUNT];
	for (int d = 0; d < b->ndim; d++)
		n *= b->shape[d];
	RefOwnMap *m = malloc(sizeof *m);
	int64_t *own = malloc(sizeof(int64_t) * (size_t)(n * nrep)), *reg = malloc(sizeof(int64_t) * (size_t)(n * nrep));
	if (!m || !own || !reg) {
		free(m), free(own), free(reg);
		return NULL;
	}
	*m = (RefOwnMap){b, ref_owner_threads(c, b), nrep, ref_regs_per_thread(b), own, reg, NULL, NULL, c->mem[bi]};
	for (int64_t idx = 0; idx < n; idx++)
		for (int64_t rep = 0; rep < nrep; rep++) {
			apply_layout(b, idx, at);
			add_replica(b, rep, at);
			int64_t o = 0;
			for (int a = AX_LANEID; a <= AX_TX; a++)
				o += at[a] * thread_weight((Axis)a);
			own[idx * nrep + rep] = o;
			reg[idx * nrep + rep] = at[AX_M];
		}
	return c->own_last = c->own[bi] = m;
}

void ref_own_free(RefCta *c)
{
	for (size_t b = 0; c->own && b < c->k->nbufs; b++)
		if (c->own[b]) {
			free(c->own[b]->own);
			free(c->own[b]->reg);
			free(c->own[b]->held);
			free(c->own[b]->first);
			free(c->own[b]);
		}
	free(c->own);
	c->own = NULL;
	c->own_last = NULL;
}

/* thread t's copy of element coord of local buffer b (ref_set_run's view):
 * the thread holds it when its index in the owner group is the one the
 * layout gives the element or one of its replicas */
static unsigned char *set_elem(void *ctx, const Buffer *b, const int64_t *coord, int64_t t, float **err, bool make)
{
	RefCta *c = ctx;
	int64_t idx = 0;
	for (int d = 0; d < b->ndim; d++)
		idx = idx * b->shape[d] + coord[d];
	const RefOwnMap *m = own_map(c, b);
	if (!m)
		return NULL;
	int64_t at = -1, mine = t % m->owner;
	for (int64_t rep = 0; rep < m->nrep && at < 0; rep++) /* any copy of a replicated element */
		if (m->own[idx * m->nrep + rep] == mine)
			at = m->reg[idx * m->nrep + rep];
	if (at < 0)
		return NULL;
	unsigned char *p = m->mem + (t * m->regs + at) * dtype_bytes(b->dt);
	*err = ref_err_slot(c, b, p, make);
	return p;
}

/* element idx counted for thread `mine` once, however many of its replicas that thread holds */
static bool first_copy(const RefOwnMap *m, int64_t idx, int64_t rep)
{
	int64_t o = m->own[idx * m->nrep + rep];
	for (int64_t q = 0; q < rep; q++)
		if (m->own[idx * m->nrep + q] == o)
			return false;
	return o >= 0 && o < m->owner;
}

/* the elements thread t holds (ref_set_run's list): those set_elem finds, inverted from the map once */
static const int64_t *set_held(void *ctx, const Buffer *b, int64_t t, int64_t *n)
{
	RefOwnMap *m = own_map(ctx, b);
	if (!m)
		return NULL;
	if (!m->first) {
		int64_t size = 1, total = 0;
		for (int d = 0; d < b->ndim; d++)
			size *= b->shape[d];
		int64_t *first = calloc((size_t)m->owner + 1, sizeof *first), *held = NULL;
		for (int64_t idx = 0; first && idx < size; idx++)
			for (int64_t rep = 0; rep < m->nrep; rep++)
				if (first_copy(m, idx, rep))
					first[m->own[idx * m->nrep + rep] + 1]++, total++;
		if (first && !(held = malloc(sizeof *held * (size_t)(total ? total : 1)))) {
			free(first);
			return NULL;
		}
		if (!first)
			return NULL;
		for (int64_t x = 0; x < m->owner; x++)
			first[x + 1] += first[x];
		int64_t *at = calloc((size_t)m->owner + 1, sizeof *at);
		if (!at) {
			free(first), free(held);
			return NULL;
		}
		for (int64_t idx = 0; idx < size; idx++) /* increasing: each thread's list in order */
			for (int64_t rep = 0; rep < m->nrep; rep++)
				if (first_copy(m, idx, rep)) {
					int64_t o = m->own[idx * m->nrep + rep];
					held[first[o] + at[o]++] = idx;
				}
		free(at);
		m->first = first, m->held = held;
	}
	int64_t mine = t % m->owner;
	*n = m->first[mine + 1] - m->first[mine];
	return m->held + m->first[mine];
}

bool ref_set(Ctx *cx, RefCta *c, const Stmt *s)
{
	if (!ref_set_run(c->k, s, c->vars, c->warps, set_elem, set_held, c)) {
		diag_error(cx, s->loc, "the reference could not evaluate this set (an operand element not held)");
		return false;
	}
	return true;
}
