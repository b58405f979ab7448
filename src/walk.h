/* One statement walker for the analyses (issue 24, item 2): it walks a
 * kernel's statement tree, runs each repeat's trips (setting the index and
 * the stage variables that follow it), counts statement instances against a
 * budget, and calls the analysis' hooks. What a repeat's trips are is a
 * policy (the trips hook): every trip, two trips standing for any runtime
 * count, the count at the launch values, or the hook runs the block itself
 * (WALK_OWN: an induction over the trips, mbarrier.c's lasso). A when block
 * is walked once where the when hook says so, else skipped (a kernel with
 * roles is proved by roles.c's own simulation). */
#ifndef TILEPX_WALK_H
#define TILEPX_WALK_H

#include "tilepx.h"

enum { WALK_OWN = -1 }; /* a trips hook's answer: the hook ran the block itself */

typedef struct Walk Walk;
struct Walk {
	const Kernel *k;
	int64_t *vals;   /* the variables' values: a repeat's index is its trip, 0 after */
	int64_t *budget; /* statement instances left (NULL: no budget); the hooks may spend it too */
	int trip_cost;   /* what a trip costs of the budget (a trip of an empty body costs too) */
	int64_t steps;   /* statement instances visited so far, blocks included */
	bool stop;       /* a hook said stop, or the budget ran out */
	void *ctx;       /* the analysis' state */
	/* hooks, each may be NULL; false stops the walk */
	bool (*stmt)(Walk *w, const Stmt *s);         /* a statement that is not a block */
	int64_t (*trips)(Walk *w, const Stmt *s);     /* a repeat's trips (NULL: walk_trips_all) */
	bool (*trip)(Walk *w, const Stmt *s, int64_t j); /* trip j begins (its index is set) */
	void (*repeat_exit)(Walk *w, const Stmt *s);  /* after the last trip (index back at 0) */
	bool (*when)(Walk *w, const Stmt *s);         /* walk a when block's body once? (NULL: no) */
	void (*when_exit)(Walk *w, const Stmt *s);
	void (*over)(Walk *w, const Stmt *s);         /* the budget ran out at s */
};

/* walk statements body[0..n) (a kernel's body, or a block's from a WALK_OWN hook) */
void walk_stmts(Walk *w, Stmt **body, size_t n);
/* one trip of repeat s: set its index to j and walk its body (for WALK_OWN hooks) */
void walk_trip(Walk *w, const Stmt *s, int64_t j);

/* repeat policies (trips hooks) */
int64_t walk_trips_all(Walk *w, const Stmt *s);    /* every trip: the constant count, or s->n's bound */
int64_t walk_trips_launch(Walk *w, const Stmt *s); /* a runtime count at the launch values in w->vals */
int64_t walk_trips_two(Walk *w, const Stmt *s);    /* a runtime count: two trips show what one trip
                                                      leaves for the next; an empty body: none */

#endif
