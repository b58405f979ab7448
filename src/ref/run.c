/* The reference's entry: every cluster of the grid, its CTAs in lockstep
 * (one walk, ref.c's hooks) or, with when blocks, as roles (roles.c). */
#include "../tilepx.h"
#include "../walk.h"
#include "ref.h"

#include <stdlib.h>
#include <string.h>

/* a kernel without roles: one walk for the whole cluster, the CTAs in
 * lockstep. Each statement runs on every CTA (by rank) before the next
 * one, so a multicast has reached every CTA of its mask when the
 * statements after it run; a repeat's trip begins and ends in every CTA.
 * Barriers and waits have no hook: the reference is sequential. */
typedef struct Lockstep {
	Ctx *cx;
	RefCta *cl;
	int nranks;
} Lockstep;

static bool lock_stmt(Walk *w, const Stmt *s)
{
	Lockstep *L = w->ctx;
	RefHook h = ref_hook[s->kind];
	for (int r = 0; h && r < L->nranks; r++)
		if (!h(L->cx, &L->cl[r], s))
			return false;
	return true;
}

static bool lock_trip(Walk *w, const Stmt *s, int64_t it)
{
	Lockstep *L = w->ctx;
	for (int r = 0; r < L->nranks; r++)
		ref_trip_begin(w->k, L->cl[r].vars, s, it);
	return true;
}

static void lock_trip_end(Walk *w, const Stmt *s, int64_t it)
{
	Lockstep *L = w->ctx;
	(void)it;
	for (int r = 0; r < L->nranks; r++)
		ref_trip_end(L->cl[r].vars, s);
}

static void lock_exit(Walk *w, const Stmt *s) /* the index back at 0 in every CTA, as in the first */
{
	Lockstep *L = w->ctx;
	for (int r = 0; r < L->nranks; r++)
		ref_set_var(w->k, L->cl[r].vars, s->var, 0);
}

static bool run_lockstep(Ctx *cx, RefCta *cl, int nranks)
{
	Lockstep L = {cx, cl, nranks};
	Walk w = {.k = cl[0].k, .vals = cl[0].vars, .ctx = &L, .stmt = lock_stmt, .trips = ref_trips, .trip = lock_trip,
	          .trip_end = lock_trip_end, .repeat_exit = lock_exit};
	walk_stmts(&w, cl[0].k->body, cl[0].k->nbody);
	return !w.stop;
}

/* every cluster of the grid (a CTA alone without a cluster declaration):
 * cluster (i, j) holds the CTAs with ctaid in [i*X, i*X + X) and ctaid_y in
 * [j*Y, j*Y + Y); the CTA's rank is (ctaid % X) + (ctaid_y % Y) * X */
bool ref_run_kernel(Ctx *cx, const Kernel *k, unsigned char **params, int64_t *bytes_moved)
{
	float **errs = calloc((size_t)(k->nparams ? k->nparams : 1), sizeof(float *));
	bool ok = errs && ref_run_kernel_tol(cx, k, params, errs, bytes_moved);
	for (int i = 0; errs && i < k->nparams; i++)
		free(errs[i]);
	free(errs);
	return ok;
}

bool ref_run_kernel_tol(Ctx *cx, const Kernel *k, unsigned char **params, float **errs, int64_t *bytes_moved)
{
	int64_t cx_ = k->cluster_x ? k->cluster_x : 1, cy = k->cluster_x ? k->cluster_y : 1;
	int n = (int)(cx_ * cy);
	RefCta *cl = calloc((size_t)n, sizeof *cl);
	struct RedAcc **racc = calloc((size_t)(k->nparams ? k->nparams : 1), sizeof *racc);
	for (int r = 0; r < n; r++) {
		cl[r].racc = racc;
		cl[r].k = k;
		cl[r].cx = cx;
		cl[r].params = params;
		cl[r].mem = calloc(k->nbufs ? k->nbufs : 1, sizeof(unsigned char *));
		cl[r].err = calloc(k->nbufs ? k->nbufs : 1, sizeof(float *));
		cl[r].perr = errs;
		cl[r].vars = calloc((size_t)k->nvars + 1, sizeof(int64_t));
		cl[r].peers = cl;
		cl[r].nranks = n;
		cl[r].warps = ~(uint64_t)0;
		for (size_t i = 0; i < k->nscalars && k->bound_vals; i++)
			cl[r].vars[k->scalars[i].var] = k->bound_vals[i];
	}
	bool ok = true, roles = ref_has_when(k->body, k->nbody);
	for (int64_t j = 0; ok && j < k->grid_y / cy; j++)
		for (int64_t i = 0; ok && i < k->grid / cx_; i++) {
			for (int r = 0; r < n; r++) {
				RefCta *c = &cl[r];
				c->vars[VAR_CTAID] = i * cx_ + r % cx_;
				c->vars[VAR_CTAIDY] = j * cy + r / cx_;
				c->vars[VAR_CRANK] = r;
				c->cta = c->vars[VAR_CTAIDY] * k->grid + c->vars[VAR_CTAID];
				for (size_t b = 0; b < k->nbufs; b++) {
					const Buffer *bf = k->bufs[b];
					size_t sz = 0;
					int es = dtype_bytes(bf->dt);
					if (bf->mem == MEM_SHARED)
						sz = (size_t)(bf->storage * es);
					else if (bf->mem == MEM_LOCAL)
						sz = (size_t)(k->threads * ref_regs_per_thread(bf) * es);
					else if (bf->mem == MEM_TMEM)
						sz = (size_t)(128 * bf->cols * 4);
					free(c->mem[b]);
					c->mem[b] = sz ? calloc(sz, 1) : NULL;
					free(c->err[b]);
					c->err[b] = NULL;
				}
			}
			ok = roles ? ref_run_roles(cx, cl, n) : run_lockstep(cx, cl, n);
		}
	int64_t moved = 0;
	for (int r = 0; r < n; r++) {
		for (size_t b = 0; b < k->nbufs; b++) {
			free(cl[r].mem[b]);
			free(cl[r].err[b]);
		}
		ref_own_free(&cl[r]);
		free(cl[r].mem);
		free(cl[r].err);
		free(cl[r].vars);
		moved += cl[r].bytes;
	}
	free(cl);
	for (int i = 0; racc && i < k->nparams; i++)
		free(racc[i]);
	free(racc);
	if (bytes_moved)
		*bytes_moved = moved;
	return ok;
}
