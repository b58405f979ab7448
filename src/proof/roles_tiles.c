/* Per-tile counts: the roles proof of a K loop whose count is an expression
 * of the persistent walk's index (a causal attention kernel's: row tile t
 * needs min(t + 1, cdiv(S, BN)) key blocks), the same expression in every
 * role (roles.c, per_tile_scan).
 *
 * Why it is sound. Every role's loop in the walk's trip j runs the same
 * count c_j: one expression of the same index, evaluated alike. The proof
 * does not compute c_j; it lets each trip's count be any value the
 * expression's range allows, chosen when the first role reaches the trip,
 * so the runs cover every sequence c_0, c_1, ... (the real one among them),
 * and every count of the walk (the walk may end at any trip). The states at
 * those choices (the round signature: clocks by their order, the walk's
 * trips relative to the slowest role's, running counts by residue, the
 * counts chosen for the trips some role has not finished) are kept; a
 * state equal to one already explored has the same futures, so the
 * exploration ends when no new state appears. At each state the counts
 * explored are those up to the transient plus period of a run whose loop
 * never ends from there: a larger count behaves as one a period smaller
 * (the loop invariant argument of "For every trip count"). */
#include "roles_sim.h"

typedef struct PtItem {
	RSim *S;
	int64_t *seq; /* the counts chosen so far, n of them */
	int64_t n;
} PtItem;

typedef struct PtProof {
	Ctx *cx;
	const TClass *cls;
	int pto, pt;
	PtItem *st;
	size_t nst, cap;
	Rounds seen, fold;
	int64_t nseen;
} PtProof;

static void pt_push(PtProof *T, RSim *S, const int64_t *seq, int64_t n, int64_t a)
{
	if (T->nst == T->cap) {
		T->cap = T->cap ? 2 * T->cap : 16;
		T->st = xrealloc(T->st, sizeof *T->st * T->cap);
	}
	PtItem *it = &T->st[T->nst++];
	it->S = S;
	it->seq = xcalloc(sizeof(int64_t) * (size_t)(n + 1));
	if (n)
		memcpy(it->seq, seq, sizeof(int64_t) * (size_t)n);
	it->seq[n] = a;
	it->n = a >= 0 ? n + 1 : n;
}

/* a failure's notes: the counts of the walk's trips that led there */
static void pt_notes(PtProof *T, const int64_t *seq, int64_t n, int64_t end)
{
	char buf[200];
	int at = 0;
	for (int64_t i = 0; i < n && at < 150; i++)
		at += snprintf(buf + at, sizeof buf - (size_t)at, "%s%lld", i ? ", " : "", (long long)seq[i]);
	if (at >= 150)
		snprintf(buf + at, sizeof buf - (size_t)at, ", ...");
	if (n)
		diag_note(T->cx, "when the repeat at line %d runs %s trip%s in the CTA's first %lld trip%s of the repeat at "
		          "line %d (each a count its expression may give)", T->cls[T->pt].first->loc.line, buf,
		          n == 1 && seq[0] == 1 ? "" : "s", (long long)n, n == 1 ? "" : "s",
		          T->cls[T->pto].first->loc.line);
	if (end >= 0)
		diag_note(T->cx, "and the repeat at line %d ends after %lld trip%s", T->cls[T->pto].first->loc.line,
		          (long long)end, end == 1 ? "" : "s");
}

/* run S on to its next choice (true, pushed with the counts seq then a) or
 * its end; false after a failure (its notes name the counts) */
static bool pt_advance(PtProof *T, RSim *S, const int64_t *seq, int64_t n, int64_t a, int64_t end)
{
	S->steps = 0;
	for (;;) {
		int st = rsim_round(S);
		if (st == ROUND_ON)
			continue;
		if (st == ROUND_CHOOSE) { /* a state explored already has the same futures */
			int64_t tr, pe;
			int m = round_check(S, &T->seen, NULL, 0, T->nseen, &tr, &pe);
			if (m == 0)
				T->nseen++, pt_push(T, S, seq, n, a);
			else
				rsim_free(S);
			return m >= 0;
		}
		bool ok = st == ROUND_END && rsim_end_checks(S);
		if (!ok) {
			int64_t *all = xcalloc(sizeof(int64_t) * (size_t)(n + 1));
			if (n)
				memcpy(all, seq, sizeof(int64_t) * (size_t)n);
			all[n] = a;
			pt_notes(T, all, a >= 0 ? n + 1 : n, end);
			free(all);
		}
		rsim_free(S);
		return ok;
	}
}

/* from choice state X (trip j = X->tknown), a run whose loops of trip j
 * never end: the counts to explore there (lo..*top; a larger count
 * behaves as one a period smaller, so fold tells where it lands) */
static bool pt_fold(PtProof *T, const PtItem *X, int64_t *trans, int64_t *period)
{
	const TClass *I = &T->cls[T->pt];
	RSim *F = rsim_copy(NULL, X->S);
	F->choose = false;
	F->pt_mode = 2;
	F->pt_endless = true;
	F->tc[F->tknown % PT_WIN] = I->hi;
	F->tknown++;
	F->free = T->pt;
	F->free_entry = 0;
	F->cap = I->hi;
	F->steps = 0;
	*trans = I->hi, *period = 1; /* no repeat before the loops end: every count up to hi runs */
	bool ok = rsim_rounds(F, &T->fold, NULL, 0, 0, trans, period);
	if (!ok)
		pt_notes(T, X->seq, X->n, -1),
		    diag_note(T->cx, "and the repeat at line %d runs more trips in the next one", I->first->loc.line);
	rsim_free(F);
	return ok;
}

/* the count a stands for at a state with the given repeat (fold_count's) */
static int64_t pt_folded(int64_t a, int64_t trans, int64_t period)
{
	int64_t top = trans + period + 1;
	return a <= top ? a : a - (a - top + period - 1) / period * period;
}

/* choice state X: the walk ends here, or trip j runs each count to explore */
static bool pt_expand(PtProof *T, PtItem *X)
{
	RSim *S = X->S;
	int64_t j = S->tknown;
	const TClass *O = &T->cls[T->pto], *I = &T->cls[T->pt];
	S->choose = false;
	if (j >= O->lo) {
		RSim *C = rsim_copy(NULL, S);
		C->oend = j;
		if (!pt_advance(T, C, X->seq, X->n, -1, j))
			return false;
	}
	if (j >= O->hi)
		return true;
	int64_t tr, pe;
	if (!pt_fold(T, X, &tr, &pe))
		return false;
	int64_t top = tr + pe + 1, past = (I->lo - 1 > top ? I->lo - 1 : top) + pe;
	int64_t hi = I->hi < past ? I->hi : past; /* past top, pe counts in a row give every fold once */
	for (int64_t a = I->lo; a <= hi; a++) {
		int64_t f = pt_folded(a, tr, pe);
		if (f != a && f >= I->lo) /* explored as f */
			continue;
		RSim *C = rsim_copy(NULL, S);
		C->tc[j % PT_WIN] = f;
		C->tknown = j + 1;
		if (!pt_advance(T, C, X->seq, X->n, f, -1))
			return false;
	}
	return true;
}

/* the counts kept: of the trips from the slowest role's to the next one */
static bool pt_window(PtProof *T, const PtItem *X)
{
	const RSim *S = X->S;
	int64_t m = S->tknown;
	for (int x = 0; x < S->nr; x++)
		for (int d = 0; d < S->r[x].depth; d++)
			if (pt_walk_frame(S, &S->r[x], d) && S->r[x].fr[d].j < m)
				m = S->r[x].fr[d].j;
	if (S->tknown - m < PT_WIN - 1)
		return true;
	diag_error(T->cx, T->cls[T->pto].first->loc, "a role runs %d trips of this repeat ahead of another: the roles "
	           "proof keeps the per-tile counts of %d", PT_WIN - 1, PT_WIN - 1);
	return false;
}

static bool pt_explore(PtProof *T)
{
	for (size_t head = 0; head < T->nst; head++) { /* in order: a failure names the fewest trips */
		PtItem X = T->st[head];
		T->st[head].S = NULL, T->st[head].seq = NULL;
		bool ok = pt_window(T, &X) && pt_expand(T, &X);
		rsim_free(X.S);
		free(X.seq);
		if (!ok)
			return false;
	}
	return true;
}

void prove_tiles(Ctx *cx, Kernel *k, const uint64_t *roles, int nr, const TClass *cls, int pto, int pt,
                 struct ViewCache *views, bool *cpa_warned, struct Fits *fits)
{
	PtProof T = {.cx = cx, .cls = cls, .pto = pto, .pt = pt};
	RSim *S = rsim_new(cx, k, roles, nr, cls, 2);
	S->views = views;
	S->cpa_warned = cpa_warned;
	S->fits = fits;
	S->pt = pt, S->pto = pto, S->pt_mode = 1;
	S->cap = cls[pt].hi;
	if (pt_advance(&T, S, NULL, 0, -1, -1))
		pt_explore(&T);
	for (size_t i = 0; i < T.nst; i++)
		if (T.st[i].S)
			rsim_free(T.st[i].S), free(T.st[i].seq);
	free(T.st);
	rounds_free(&T.seen);
	rounds_free(&T.fold);
}
