/* tilepx explain: the dispatch decision of every copy, as JSON lines
 * (TILE_LANGUAGE.md) or as a table. */
#include "tilepx.h"

static void json_str(Str *o, const char *s)
{
	str_putc(o, '"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			str_printf(o, "\\%c", c);
		else if (c < 32)
			str_printf(o, "\\u%04x", c);
		else
			str_putc(o, (char)c);
	}
	str_putc(o, '"');
}

static void explain_copy(Ctx *cx, const Module *m, const Kernel *k, const Stmt *s, bool json, Str *o)
{
	CopyOp op;
	Decision d;
	if (!copy_op_init(cx, m, k, s, &op))
		return;
	/* a copy nothing lowers is shown with every reason, not reported as an error */
	dispatch_copy(&op, &d, false);
	const char *opname = stmt_info[s->kind].keyword;
	if (json) {
		str_puts(o, "{\"kernel\": ");
		json_str(o, k->name);
		str_printf(o, ", \"line\": %d, \"op\": \"%s\", \"scope\": \"%s\", \"dst\": ", s->loc.line, opname,
		           scope_name(s->scope));
		json_str(o, s->dst->name);
		str_puts(o, ", \"src\": ");
		json_str(o, s->src->name);
		str_puts(o, ", \"candidates\": [");
		for (int i = 0; i < d.ncand; i++) {
			const Candidate *c = &d.cand[i];
			str_printf(o, "%s{\"variant\": \"%s\", \"priority\": %d, \"accepted\": %s, \"reason\": ", i ? ", " : "",
			           c->v->name, c->v->priority, c->state == 1 ? "true" : c->state == 0 ? "false" : "null");
			if (c->state == 1)
				str_puts(o, "null");
			else
				json_str(o, c->reason);
			str_putc(o, '}');
		}
		str_puts(o, "], \"chosen\": ");
		if (d.chosen)
			json_str(o, d.chosen->name);
		else
			str_puts(o, "null");
		str_printf(o, ", \"params\": %s}\n", d.chosen ? d.plan.params : "null");
	} else {
		str_printf(o, "%s:%d: %s %s %s, %s\n", k->name, s->loc.line, scope_name(s->scope), opname, s->dst->name,
		           s->src->name);
		for (int i = 0; i < d.ncand; i++) {
			const Candidate *c = &d.cand[i];
			str_printf(o, "  %-13s prio %-3d %-9s %s\n", c->v->name, c->v->priority,
			           c->state == 1 ? "CHOSEN" : c->state == 0 ? "rejected" : "-",
			           c->state == 1 ? d.plan.params : c->reason);
		}
	}
}

typedef struct Walk {
	Ctx *cx;
	const Module *m;
	const Kernel *k;
	bool json, explain;
	Str *o;
} Walk;

/* every copy statement: explain it, or dispatch it (reporting no-variant errors) */
static void visit(void *ctx, const Stmt *s)
{
	Walk *w = ctx;
	if (!(stmt_info[s->kind].flags & SF_COPY))
		return;
	if (w->explain) {
		explain_copy(w->cx, w->m, w->k, s, w->json, w->o);
		return;
	}
	CopyOp op;
	Decision d;
	if (copy_op_init(w->cx, w->m, w->k, s, &op))
		dispatch_copy(&op, &d, true);
}

static void walk_module(Ctx *cx, const Module *m, bool explain, bool json, Str *o)
{
	for (size_t i = 0; i < m->nkernels; i++) {
		Walk w = {cx, m, m->kernels[i], json, explain, o};
		stmt_walk(m->kernels[i]->body, m->kernels[i]->nbody, visit, &w);
	}
}

/* check = front end plus dispatch, so a program that checks also emits */
bool check_and_dispatch(Ctx *cx, Module *m)
{
	if (!check_module(cx, m))
		return false;
	walk_module(cx, m, false, false, NULL);
	return cx->diags.errors == 0;
}

bool explain_module(Ctx *cx, Module *m, bool json, Str *out)
{
	if (!check_module(cx, m))
		return false;
	walk_module(cx, m, true, json, out);
	return cx->diags.errors == 0;
}
