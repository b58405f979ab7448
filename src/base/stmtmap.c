/* Results of a pass kept beside the statements and buffers, never in them: a
 * table from a statement (or buffer) to the pass's record of it (open
 * addressing on the address), and the accessors of the records. */
#include "tilepx.h"

#include <stdint.h>

struct StmtMap {
	const void **key;
	void **val;
	size_t cap, n;
};

static size_t slot_of(const StmtMap *t, const void *s)
{
	uint64_t h = (uint64_t)(uintptr_t)s * 0x9e3779b97f4a7c15u;
	size_t i = (size_t)(h >> 20) & (t->cap - 1);
	while (t->key[i] && t->key[i] != s)
		i = (i + 1) & (t->cap - 1);
	return i;
}

static void *map_get(const StmtMap *t, const void *s)
{
	if (!t || !t->cap)
		return NULL;
	size_t i = slot_of(t, s);
	return t->key[i] ? t->val[i] : NULL;
}

static void map_put(Arena *a, StmtMap **tp, const void *s, void *v)
{
	if (!*tp)
		*tp = arena_alloc(a, sizeof **tp);
	StmtMap *t = *tp;
	if (2 * (t->n + 1) > t->cap) { /* at most half full */
		size_t cap = t->cap ? 2 * t->cap : 64;
		StmtMap g = {arena_alloc(a, sizeof(void *) * cap), arena_alloc(a, sizeof(void *) * cap), cap, t->n};
		for (size_t i = 0; i < t->cap; i++)
			if (t->key[i]) {
				size_t j = slot_of(&g, t->key[i]);
				g.key[j] = t->key[i];
				g.val[j] = t->val[i];
			}
		*t = g;
	}
	size_t i = slot_of(t, s);
	if (!t->key[i])
		t->n++;
	t->key[i] = s;
	t->val[i] = v;
}

void *stmtmap_get(const StmtMap *t, const Stmt *s) { return map_get(t, s); }
void stmtmap_put(Arena *a, StmtMap **t, const Stmt *s, void *v) { map_put(a, t, s, v); }

bool expect_tx_bytes(const Ctx *cx, const Stmt *s, int64_t *bytes)
{
	if (s->has_value) {
		*bytes = s->n;
		return true;
	}
	const int64_t *n = stmtmap_get(cx->tx_bytes, s);
	if (n)
		*bytes = *n;
	return n != NULL;
}

void expect_tx_set_bytes(Ctx *cx, const Stmt *s, int64_t bytes)
{
	int64_t *n = stmtmap_get(cx->tx_bytes, s); /* the simulation sets it once per trip */
	if (!n) {
		n = arena_alloc(cx->arena, sizeof *n);
		stmtmap_put(cx->arena, &cx->tx_bytes, s, n);
	}
	*n = bytes;
}

/* a set or reduce statement's plan, as the statements pass made it for kernel k */
typedef struct KeptPlan { const Kernel *k; const void *plan; } KeptPlan;

void plan_keep(Ctx *cx, const Kernel *k, const Stmt *s, const void *plan)
{
	KeptPlan *p = arena_alloc(cx->arena, sizeof *p);
	*p = (KeptPlan){k, plan};
	stmtmap_put(cx->arena, &cx->plans, s, p);
}

const void *plan_kept(const Ctx *cx, const Kernel *k, const Stmt *s)
{
	const KeptPlan *p = stmtmap_get(cx->plans, s);
	return p && p->k == k ? p->plan : NULL;
}

const SwizzleChoice *swizzle_choice(const Ctx *cx, const Buffer *b) { return map_get(cx->swizzle, b); }

SwizzleChoice *swizzle_choice_new(Ctx *cx, const Buffer *b)
{
	SwizzleChoice *c = arena_alloc(cx->arena, sizeof *c); /* zeroed */
	map_put(cx->arena, &cx->swizzle, b, c);
	return c;
}

Swizzle buffer_swizzle(const Ctx *cx, const Buffer *b)
{
	const SwizzleChoice *c = b->sw_auto ? swizzle_choice(cx, b) : NULL;
	return c ? c->sw : b->layout.sw;
}

int tensor_map_swizzle(const Ctx *cx, const Buffer *g)
{
	const int *swz = map_get(cx->tmap_swizzle, g);
	return swz ? *swz : g->tma_swizzle;
}

void tensor_map_swizzle_set(Ctx *cx, const Buffer *g, int bytes)
{
	int *swz = map_get(cx->tmap_swizzle, g);
	if (!swz) {
		swz = arena_alloc(cx->arena, sizeof *swz);
		map_put(cx->arena, &cx->tmap_swizzle, g, swz);
	}
	*swz = bytes;
}

bool mbar_run_time_phase(const Ctx *cx, const Mbar *mb) { return mb->dyn_phase || map_get(cx->run_time_phase, mb); }

void mbar_run_time_phase_set(Ctx *cx, const Mbar *mb)
{
	if (!map_get(cx->run_time_phase, mb)) { /* the value: only presence counts */
		bool *yes = arena_alloc(cx->arena, sizeof *yes);
		*yes = true;
		map_put(cx->arena, &cx->run_time_phase, mb, yes);
	}
}

/* every statement of body[0..n) with its block (the kernel's body array
 * stands for the top: a map holds no NULL) */
static void put_parents(Ctx *cx, Stmt **body, size_t n, const void *parent)
{
	for (size_t i = 0; i < n; i++) {
		map_put(cx->arena, &cx->parent, body[i], (void *)parent);
		if (stmt_info[body[i]->kind].flags & SF_BLOCK)
			put_parents(cx, body[i]->body, body[i]->nbody, body[i]);
	}
}

bool stmt_parent(Ctx *cx, const Kernel *k, const Stmt *s, const Stmt **parent)
{
	if (!k->nbody)
		return false;
	if (!map_get(cx->parent, k->body)) { /* keyed by the body array: a kernel copied on the stack shares it */
		map_put(cx->arena, &cx->parent, k->body, k->body);
		put_parents(cx, k->body, k->nbody, k->body);
	}
	const void *p = map_get(cx->parent, s);
	if (!p)
		return false;
	*parent = p == (const void *)k->body ? NULL : p;
	return true;
}
