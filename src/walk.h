/* One statement walker for the analyses (issue 24, item 2): it walks a
 * kernel's statement tree, runs each repeat's trips (setting the index and
 * the stage variables that follow it), counts statement instances against a
 * budget, and calls the analysis' hooks. What a repeat's trips are is a
 * policy (the trips hook): every trip, two trips standing for any runtime
 * count, the count at the launch values, or the hook runs the block itself
 * (WALK_OWN: the hook runs them). A when block
 * is walked once where the when hook says so, else skipped (the race check
 * walks the blocks of one role at a time; roles.c's proof runs its own
 * frames).
 *
 * The walk is a cursor (WalkCursor, walk_next): an explicit stack of frames
 * that yields one statement instance at a time, so that a caller can
 * interleave several walks (the reference's roles, one cursor each) or hold
 * a statement that blocks. walk_stmts is a loop over walk_next: there is one
 * implementation of what comes next. */
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
	void (*trip_end)(Walk *w, const Stmt *s, int64_t j); /* trip j's body has run (not after a stop) */
	void (*repeat_exit)(Walk *w, const Stmt *s);  /* after the last trip (index back at 0) */
	bool (*when)(Walk *w, const Stmt *s);         /* walk a when block's body once? (NULL: no) */
	void (*when_exit)(Walk *w, const Stmt *s);
	void (*over)(Walk *w, const Stmt *s);         /* the budget ran out at s */
};

/* a walk in steps: the blocks it stands in, innermost last. A frame is the
 * walked body (blk NULL), a when's block or a repeat's trip; blocks nest at
 * most MAX_REPEAT_DEPTH deep (the parser's limit; deeper: the walk stops) */
enum { WALK_DEPTH = MAX_REPEAT_DEPTH + 2 };
typedef struct WalkFrame {
	const Stmt *blk;      /* the repeat or when whose block this is; NULL: the walked body */
	Stmt **body;
	size_t n, i;          /* its statements, and the next one's place */
	int64_t trip, trips;  /* a repeat's trip and its count */
} WalkFrame;
typedef struct WalkCursor {
	Walk *w;              /* the hooks, values and budget (each cursor its own to interleave) */
	WalkFrame f[WALK_DEPTH];
	int depth;
} WalkCursor;

/* a cursor at the start of body[0..n) */
void walk_begin(WalkCursor *c, Walk *w, Stmt **body, size_t n);
/* the next statement instance that is not a block, its indices set; the
 * blocks on the way are entered and left with their hooks and budget. NULL:
 * the walk is over (its end, or a stop: every block left, as on an end) */
const Stmt *walk_next(WalkCursor *c);

/* walk statements body[0..n) (a kernel's body, or a block's from a WALK_OWN
 * hook): walk_next until the end, the stmt hook on each */
void walk_stmts(Walk *w, Stmt **body, size_t n);
/* one trip of repeat s: set its index to j and walk its body (for WALK_OWN hooks) */
void walk_trip(Walk *w, const Stmt *s, int64_t j);

/* repeat policies (trips hooks) */
int64_t walk_trips_all(Walk *w, const Stmt *s);    /* every trip: the constant count, or s->n's bound */
int64_t walk_trips_launch(Walk *w, const Stmt *s); /* a runtime count at the launch values in w->vals */
int64_t walk_trips_two(Walk *w, const Stmt *s);    /* a runtime count: two trips show what one trip
                                                      leaves for the next; an empty body: none */

#endif
