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
	const char *opname = s->kind == ST_COPY ? "copy" : "copy_async";
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

static void walk(Ctx *cx, const Module *m, const Kernel *k, Stmt **body, size_t n, bool json, Str *o)
{
	for (size_t i = 0; i < n; i++) {
		const Stmt *s = body[i];
		if (s->kind == ST_COPY || s->kind == ST_COPY_ASYNC)
			explain_copy(cx, m, k, s, json, o);
		else if (s->kind == ST_REPEAT)
			walk(cx, m, k, s->body, s->nbody, json, o);
	}
}

static void dispatch_all(Ctx *cx, const Module *m, const Kernel *k, Stmt **body, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const Stmt *s = body[i];
		CopyOp op;
		Decision d;
		if ((s->kind == ST_COPY || s->kind == ST_COPY_ASYNC) && copy_op_init(cx, m, k, s, &op))
			dispatch_copy(&op, &d, true);
		else if (s->kind == ST_REPEAT)
			dispatch_all(cx, m, k, s->body, s->nbody);
	}
}

/* check = front end plus dispatch, so a program that checks also emits */
bool check_and_dispatch(Ctx *cx, Module *m)
{
	if (!check_module(cx, m))
		return false;
	for (size_t i = 0; i < m->nkernels; i++)
		dispatch_all(cx, m, m->kernels[i], m->kernels[i]->body, m->kernels[i]->nbody);
	return cx->diags.errors == 0;
}

bool explain_module(Ctx *cx, Module *m, bool json, Str *out)
{
	if (!check_module(cx, m))
		return false;
	for (size_t i = 0; i < m->nkernels; i++)
		walk(cx, m, m->kernels[i], m->kernels[i]->body, m->kernels[i]->nbody, json, out);
	return cx->diags.errors == 0;
}
