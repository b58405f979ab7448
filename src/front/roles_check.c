/* Warp roles, the statements' own checks: what a statement inside a when
 * block may not do, named barrier ids and counts (bar.sync, bar.arrive),
 * setmaxnreg and the register budgets it sets. The multi-role phase proof
 * is src/proof/roles.c's. */
#include "tilepx.h"

#include <stdint.h>

static int popcount64(uint64_t v) { return __builtin_popcountll(v); }

void check_in_role(Ctx *cx, Kernel *k, const Stmt *s)
{
	char ws[96];
	fmt_warps(ws, sizeof ws, s->warps);
	const StmtInfo *si = &stmt_info[s->kind];
	if (s->kind == ST_SYNC || s->kind == ST_MBAR_INIT || si->cbar) {
		diag_error(cx, s->loc, "%s inside a when block: every thread of the %s must reach it, but only warps %s do",
		           si->keyword, si->cbar ? "cluster" : "CTA", ws);
		diag_note(cx, s->kind == ST_SYNC ? "the other warps never arrive (a hang): 'bar.sync ID, COUNT' orders the "
		                                   "warps of the roles that take part"
		                                 : "do it before the when blocks, where every warp runs");
		return;
	}
	bool wg = s->scope == SC_WARPGROUP && (si->flags & SF_SCOPED);
	wg |= s->kind == ST_WG_FENCE || s->kind == ST_WG_COMMIT || s->kind == ST_WG_WAIT;
	wg |= s->kind == ST_SETMAXNREG_INC || s->kind == ST_SETMAXNREG_DEC;
	wg |= s->kind == ST_MBAR_ARRIVE && s->per == SC_WARPGROUP;
	if (wg && !whole_warpgroups(s->warps)) {
		diag_error(cx, s->per == SC_WARPGROUP && s->kind == ST_MBAR_ARRIVE ? s->per_loc : s->loc,
		           "%s is warpgroup-wide, but the warps that run it (%s) are not whole warpgroups", si->keyword, ws);
		diag_note(cx, "a warpgroup is warps 4g..4g+3: select roles by wgid");
		return;
	}
	if ((si->flags & SF_COPY) && s->scope == SC_CTA && !stmt_is_tma_load(s) && !stmt_is_tma_store(s) &&
	    !stmt_is_bulk_store(s)) {
		diag_error(cx, s->loc, "a cta copy inside a when block: the copy divides among every thread of the CTA, "
		           "but only warps %s run it", ws);
		diag_note(cx, "use warp or warpgroup scope here; a TMA or bulk copy (issued by one thread) may be cta");
		return;
	}
	if (s->kind == ST_DUMP) {
		diag_error(cx, s->loc, "dump inside a when block: every thread of the CTA writes its slot");
		return;
	}
	(void)k;
}

/* an id from wgid: 1..15 in every warpgroup that runs it; the most threads of one id */
static bool check_bar_ids(Ctx *cx, const Stmt *s, int64_t *here)
{
	for (int w = 0; w < 64; w++)
		if (s->warps >> w & 1) {
			int64_t id = nbar_id_at(s, w), n = 32 * (int64_t)popcount64(nbar_warps(s, id));
			if (id < 1 || id > 15) {
				diag_error(cx, s->value_loc, "this barrier id is %lld in warpgroup %d; a named barrier id is 1..15",
				           (long long)id, w / 4);
				return false;
			}
			*here = n > *here ? n : *here;
		}
	return true;
}

/* bar.sync ID [, COUNT], bar.arrive ID, COUNT */
void check_named_bar(Ctx *cx, const Module *m, Kernel *k, Stmt *s)
{
	(void)m;
	int64_t here = s->bar_id ? 0 : 32 * (int64_t)popcount64(s->warps);
	if (s->bar_id && !check_bar_ids(cx, s, &here))
		return;
	k->has_roles |= s->bar_id != NULL; /* each warpgroup meets at its own barrier: roles (the roles proof) */
	if (k->is_func) {
		diag_error(cx, s->loc, "%s in a func: named barriers belong to the kernel's roles", stmt_info[s->kind].keyword);
		return;
	}
	if (!s->has_count)
		s->count = here;
	const char *id = s->bar_id ? "(its id from wgid)" : arena_printf(cx->arena, "%lld", (long long)s->n);
	if (s->count < here) {
		diag_error(cx, s->value_loc, "%s %s counts %lld threads, but the %lld threads of warps that run it all "
		           "arrive", stmt_info[s->kind].keyword, id, (long long)s->count, (long long)here);
		return;
	}
	if (s->count > k->threads) {
		diag_error(cx, s->value_loc, "%s %s counts %lld threads; kernel '%s' has %lld", stmt_info[s->kind].keyword,
		           id, (long long)s->count, k->name, (long long)k->threads);
		return;
	}
	if (!s->bar_id && s->warps == kernel_all_warps(k) && s->count != k->threads) {
		diag_error(cx, s->value_loc, "every thread runs this %s, so its count must be %lld (got %lld)",
		           stmt_info[s->kind].keyword, (long long)k->threads, (long long)s->count);
		return;
	}
	if (!s->bar_id && s->kind == ST_NBAR_ARRIVE && s->warps == kernel_all_warps(k)) {
		diag_error(cx, s->loc, "bar.arrive outside a when block: no thread is left to bar.sync on it");
		return;
	}
}

void check_setmaxnreg(Ctx *cx, const Module *m, Kernel *k, Stmt *s)
{
	(void)m;
	if (s->n < 24 || s->n > 256 || s->n % 8) {
		diag_error(cx, s->loc, "%s %lld: the register count is a multiple of 8 in 24..256", stmt_info[s->kind].keyword,
		           (long long)s->n);
		return;
	}
	if (k->is_func)
		diag_error(cx, s->loc, "%s in a func: register budgets belong to the kernel's roles",
		           stmt_info[s->kind].keyword);
}

struct Budget { Ctx *cx; Kernel *k; const Stmt *last[16]; };

static void note_budget(void *ctx, const Stmt *s)
{
	struct Budget *B = ctx;
	if (s->kind != ST_SETMAXNREG_INC && s->kind != ST_SETMAXNREG_DEC)
		return;
	for (int g = 0; g < 16; g++)
		if (s->warps >> (4 * g) & 0xf) {
			if (B->last[g] && B->last[g]->n != s->n)
				diag_error(B->cx, s->loc, "warpgroup %d sets its register budget to %lld here and to %lld at line %d",
				           g, (long long)s->n, (long long)B->last[g]->n, B->last[g]->loc.line);
			B->last[g] = s;
		}
}

/* registers: a CTA launches with .maxnreg R per thread (the largest
 * multiple of 8 that lets the CTA fit the 64K-register file); each
 * setmaxnreg moves its warpgroup to its count, and the counts together
 * must fit the file (one CTA per SM) */
void check_role_budgets(Ctx *cx, const Module *m, Kernel *k)
{
	(void)m;
	struct Budget B = {cx, k, {0}};
	int before = cx->diags.errors;
	stmt_walk(k->body, k->nbody, note_budget, &B);
	int nwg = (int)((k->threads + 127) / 128);
	bool any = false;
	for (int g = 0; g < nwg; g++)
		any |= B.last[g] != NULL;
	if (!any || cx->diags.errors != before)
		return;
	if (k->threads % 128) {
		diag_error(cx, k->threads_loc, "setmaxnreg needs whole warpgroups: kernel '%s' has %lld threads", k->name,
		           (long long)k->threads);
		return;
	}
	int64_t r = 65536 / k->threads / 8 * 8;
	if (r > 256)
		r = 256;
	k->maxnreg = r;
	int64_t total = 0;
	for (int g = 0; g < nwg; g++) {
		const Stmt *s = B.last[g];
		if (s && s->kind == ST_SETMAXNREG_INC && s->n < r) {
			diag_error(cx, s->loc, "setmaxnreg.inc %lld lowers warpgroup %d's budget: it starts at %lld registers",
			           (long long)s->n, g, (long long)r);
			diag_note(cx, "the CTA launches with .maxnreg %lld (64K registers / %lld threads); use setmaxnreg.dec",
			          (long long)r, (long long)k->threads);
			return;
		}
		if (s && s->kind == ST_SETMAXNREG_DEC && s->n > r) {
			diag_error(cx, s->loc, "setmaxnreg.dec %lld raises warpgroup %d's budget: it starts at %lld registers",
			           (long long)s->n, g, (long long)r);
			diag_note(cx, "the CTA launches with .maxnreg %lld (64K registers / %lld threads); use setmaxnreg.inc",
			          (long long)r, (long long)k->threads);
			return;
		}
		total += 128 * (s ? s->n : r);
	}
	if (total > 65536) {
		const Stmt *inc = NULL;
		for (int g = 0; g < nwg && !inc; g++)
			if (B.last[g] && B.last[g]->kind == ST_SETMAXNREG_INC)
				inc = B.last[g];
		diag_error(cx, inc ? inc->loc : k->loc, "the register budgets of kernel '%s' need %lld registers; an SM has "
		           "65536", k->name, (long long)total);
		for (int g = 0; g < nwg; g++)
			diag_note(cx, "warpgroup %d: %lld x 128%s", g, (long long)(B.last[g] ? B.last[g]->n : r),
			          B.last[g] ? "" : " (its launch budget, .maxnreg)");
	}
}
