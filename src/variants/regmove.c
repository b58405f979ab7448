/* copy / regmove: registers -> registers inside each thread. Accepted when
 * every destination element's source element lives in the same thread of
 * the owner group, in a register that is the same for every thread; this is
 * decided from the two layouts over every element (regpair.c). Each
 * destination word is then one mov.b32, one packed cvt of two registers, or
 * prmt.b32 where narrow elements move inside or between words. */
#include "regpair.h"
#include "regmove.h"

#include <stdio.h>

static const char *plan(const CopyOp *op, Plan *p)
{
	MovePlan *mp = &p->u.regmove;
	const char *why = regpair_map(op, &mp->map);
	if (why)
		return why;
	const RegMap *m = &mp->map;
	RegCounts n;
	regpair_count(op, m, NULL, false, &n);
	int at = snprintf(p->params, sizeof p->params, "{\"words\": %d, \"mov\": %d, \"prmt\": %d, \"cvt\": %d", m->words,
	                  n.mov, n.prmt, n.cvt);
	if (op->dbuf->dt != op->sbuf->dt)
		at += snprintf(p->params + at, sizeof p->params - (size_t)at, ", \"convert\": \"%s -> %s\"",
		               dtype_name(op->sbuf->dt), dtype_name(op->dbuf->dt));
	snprintf(p->params + at, sizeof p->params - (size_t)at, "}");
	snprintf(p->summary, sizeof p->summary, "regmove %d words: %d mov, %d prmt, %d cvt", m->words, n.mov, n.prmt,
	         n.cvt);
	return NULL;
}

static void emit(const CopyOp *op, const Plan *p, Emit *e)
{
	const MovePlan *mp = &p->u.regmove;
	regpair_emit(op, &mp->map, NULL, false, e);
}

const Variant variant_regmove = {"regmove", ST_COPY, 10, regpair_accepts, plan, emit, .converts = true};
