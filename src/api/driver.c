/* The pipeline: one table, one row per pass, run in its order by every
 * command (tilepx check, explain, emit, the C API, the tools). Like QBE's
 * main.c, the passes of a kernel run one after the other on that kernel
 * (kernel by kernel, so diagnostics come in the order of the kernels), and a
 * kernel's passes stop at its first pass that reports an error: the later
 * ones assume what the earlier proved. Module passes after the kernel passes
 * run only for a module without errors. */
#include "tilepx.h"

#include <string.h>

enum { RUN_ANALYSE = 1 << CMD_ANALYSE, RUN_CHECK = 1 << CMD_CHECK, RUN_EXPLAIN = 1 << CMD_EXPLAIN,
       RUN_EXPLAIN_JSON = 1 << CMD_EXPLAIN_JSON, RUN_EMIT = 1 << CMD_EMIT,
       RUN_ALL = RUN_ANALYSE | RUN_CHECK | RUN_EXPLAIN | RUN_EXPLAIN_JSON | RUN_EMIT };

/* what the passes share while they run */
typedef struct Pipe {
	Ctx *cx;
	Module *m;
	Command cmd;
	Str *out;
	int64_t shared_bytes; /* check -> allocate: the buffers' shared bytes */
} Pipe;

/* module passes */
static bool pass_header(Pipe *p, Kernel *k)
{
	(void)k;
	return check_module_header(p->cx, p->m);
}

/* the copies no variant lowers, each an error with its candidates' reasons */
static void report_copy(void *ctx, const Stmt *s)
{
	const Pipe *p = ((const void *const *)ctx)[0];
	const Kernel *k = ((const void *const *)ctx)[1];
	if (!(stmt_info[s->kind].flags & SF_COPY))
		return;
	CopyOp op;
	Decision d;
	if (select_copy(p->cx, p->m, k, s, &op, &d) && !d.chosen)
		dispatch_report(&op, &d);
}

static bool pass_report(Pipe *p, Kernel *k)
{
	(void)k;
	for (size_t i = 0; i < p->m->nkernels; i++) {
		const void *ctx[2] = {p, p->m->kernels[i]};
		stmt_walk(p->m->kernels[i]->body, p->m->kernels[i]->nbody, report_copy, ctx);
	}
	return p->cx->diags.errors == 0;
}

static bool pass_explain(Pipe *p, Kernel *k)
{
	(void)k;
	explain_module(p->cx, p->m, p->cmd == CMD_EXPLAIN_JSON, p->out);
	return p->cx->diags.errors == 0;
}

/* emit; for check, into a scratch buffer: the module printer's own errors (a
 * form the target lacks, a .version too old for an instruction) make check
 * fail wherever emit does, and its warnings are emit's to give */
static bool pass_emit(Pipe *p, Kernel *k)
{
	(void)k;
	if (p->cmd == CMD_EMIT)
		return emit_checked_module(p->cx, p->m, p->out);
	Str scratch = {0};
	size_t before = p->cx->diags.n;
	emit_checked_module(p->cx, p->m, &scratch);
	str_free(&scratch);
	diag_drop_warnings_since(p->cx, before);
	return p->cx->diags.errors == 0;
}

/* kernel passes: each returns false when it reported an error */
static bool pass_check(Pipe *p, Kernel *k)
{
	size_t i = 0;
	while (p->m->kernels[i] != k)
		i++;
	return check_kernel(p->cx, p->m, i, &p->shared_bytes);
}

static bool pass_allocate(Pipe *p, Kernel *k) { return allocate_kernel(p->cx, p->m, k, p->shared_bytes); }
static bool pass_statements(Pipe *p, Kernel *k)
{
	return check_kernel_stmts(p->cx, p->m, k) && allocate_reduce_scratch(p->cx, p->m, k);
}

static bool pass_swizzle(Pipe *p, Kernel *k)
{
	int before = p->cx->diags.errors;
	resolve_auto_swizzle(p->cx, p->m, k);
	return p->cx->diags.errors == before;
}

static bool pass_select(Pipe *p, Kernel *k) { return select_kernel(p->cx, p->m, k); }

/* mbarrier phases, bulk groups, cp.async groups, cluster barriers: the
 * roles' proof, of every kernel (without roles, one role of every warp),
 * wgmma's register and proxy rules included */
static bool pass_async(Pipe *p, Kernel *k)
{
	int before = p->cx->diags.errors;
	if (check_tma_maps_used(p->cx, k))
		check_role_phases(p->cx, p->m, k);
	return p->cx->diags.errors == before;
}

static bool pass_races(Pipe *p, Kernel *k)
{
	int before = p->cx->diags.errors;
	check_races(p->cx, p->m, k); /* within each role; the phase proof orders the roles against each other */
	return p->cx->diags.errors == before;
}

typedef struct Pass {
	const char *name;
	bool per_kernel;
	bool (*run)(Pipe *p, Kernel *k);
	unsigned runs; /* the commands that run it (RUN_*) */
	const char *what; /* for --dump-after's heading */
} Pass;

/* THE PASS LIST. parse_module runs before it (src/front/parse.c). */
static const Pass passes[] = {
	{"header", false, pass_header, RUN_ALL, "the module's target and version"},
	{"check", true, pass_check, RUN_ALL, "declarations and buffers (shared offsets)"},
	{"allocate", true, pass_allocate, RUN_ALL, "tensor memory, mbarriers, dynamic shared memory"},
	{"statements", true, pass_statements, RUN_ALL, "each statement's checks, role budgets"},
	{"swizzle-auto", true, pass_swizzle, RUN_ALL, "'swizzle auto' buffers"},
	{"select", true, pass_select, RUN_ALL, "each copy's variant"},
	{"async", true, pass_async, RUN_ALL, "phases and groups of asynchronous work"},
	{"races", true, pass_races, RUN_ALL, "shared-memory races"},
	{"report", false, pass_report, RUN_CHECK, "copies no variant lowers"},
	{"explain", false, pass_explain, RUN_EXPLAIN | RUN_EXPLAIN_JSON, "explain's records"},
	{"emit", false, pass_emit, RUN_CHECK | RUN_EMIT, "the PTX module"},
};
enum { NPASSES = sizeof passes / sizeof passes[0] };

const char *pass_names(void)
{
	return "header, check, allocate, statements, swizzle-auto, select, async, races, report, explain, emit";
}

bool pass_known(const char *name)
{
	for (int i = 0; i < NPASSES; i++)
		if (!strcmp(passes[i].name, name))
			return true;
	return false;
}

/* ---- --dump-after: the state a pass leaves, short and for people ---- */

static void dump_stmts(Pipe *p, const Kernel *k, Stmt **body, size_t n, int depth, Str *o)
{
	for (size_t i = 0; i < n; i++) {
		const Stmt *s = body[i];
		str_printf(o, "%*sline %d: %s", 2 + 2 * depth, "", s->loc.line, stmt_info[s->kind].keyword);
		if (s->dst && s->src)
			str_printf(o, " %s, %s", s->dst->name, s->src->name);
		if (s->mbar_name)
			str_printf(o, " mbarrier %s", s->mbar_name);
		if (s->kind == ST_REPEAT)
			str_printf(o, " %lld", (long long)s->n);
		const Affine *parity = stmtmap_get(p->cx->parity, s);
		if (parity)
			str_printf(o, " (parity: %s)", affine_is_const(parity) ? "constant" : "affine in the loop indices");
		int64_t tx;
		if (s->kind == ST_MBAR_EXPECT_TX && !s->has_value && expect_tx_bytes(p->cx, s, &tx))
			str_printf(o, " (%lld bytes)", (long long)tx);
		if ((stmt_info[s->kind].flags & SF_COPY) && p->cx->sel) {
			CopyOp op;
			Decision d;
			if (!select_copy(p->cx, p->m, k, s, &op, &d))
				str_puts(o, " -> regions do not slice");
			else if (d.chosen)
				str_printf(o, " -> %s %s", d.chosen->name, d.plan.params);
			else
				str_puts(o, " -> no variant");
		}
		str_putc(o, '\n');
		if (s->body)
			dump_stmts(p, k, s->body, s->nbody, depth + 1, o);
	}
}

static void dump_kernel(Pipe *p, const Pass *ps, const Kernel *k, Str *o)
{
	str_printf(o, "after %s (%s): kernel %s, %lld threads, grid %lld x %lld\n", ps->name, ps->what,
	           k->name ? k->name : "?", (long long)k->threads, (long long)k->grid, (long long)k->grid_y);
	for (size_t i = 0; i < k->nbufs; i++) {
		const Buffer *b = k->bufs[i];
		str_printf(o, "  buffer %s: %s", b->name, b->mem == MEM_SHARED ? "shared" : b->mem == MEM_GLOBAL ? "param"
		                                        : b->mem == MEM_TMEM ? "tmem" : "local");
		if (b->mem == MEM_SHARED)
			str_printf(o, " at byte %lld, %lld elements%s", (long long)b->shared_offset, (long long)b->storage,
			           buffer_swizzle(p->cx, b).on ? ", swizzled" : "");
		str_putc(o, '\n');
	}
	for (size_t i = 0; i < k->nmbars; i++)
		str_printf(o, "  mbarrier %s[%lld] at byte %lld\n", k->mbars[i].name, (long long)k->mbars[i].n,
		           (long long)k->mbars[i].shared_offset);
	if (k->dyn_shared)
		str_printf(o, "  dynamic shared memory: %lld bytes\n", (long long)k->dyn_shared);
	dump_stmts(p, k, k->body, k->nbody, 0, o);
}

static void dump_module(Pipe *p, const Pass *ps, Str *o)
{
	str_printf(o, "after %s (%s): %zu kernels, %d errors, %zu bytes of output\n", ps->name, ps->what,
	           p->m->nkernels, p->cx->diags.errors, p->out ? p->out->n : (size_t)0);
}

bool run_passes(Ctx *cx, Module *m, Command cmd, const char *dump_after, Str *out, Str *dump)
{
	Pipe p = {cx, m, cmd, out, 0};
	unsigned me = 1u << cmd;
	for (int i = 0; i < NPASSES; i++) {
		if (!(passes[i].runs & me))
			continue;
		if (!passes[i].per_kernel) {
			bool ok = passes[i].run(&p, NULL);
			if (dump && dump_after && !strcmp(dump_after, passes[i].name))
				dump_module(&p, &passes[i], dump);
			if (!ok)
				return false;
			continue;
		}
		/* a run of kernel passes: all of them on one kernel, then the next */
		int j = i;
		while (j < NPASSES && passes[j].per_kernel)
			j++;
		for (size_t ki = 0; ki < m->nkernels; ki++)
			for (int q = i; q < j; q++) {
				if (!(passes[q].runs & me))
					continue;
				bool ok = passes[q].run(&p, m->kernels[ki]);
				if (dump && dump_after && !strcmp(dump_after, passes[q].name))
					dump_kernel(&p, &passes[q], m->kernels[ki], dump);
				if (!ok)
					break;
			}
		if (cx->diags.errors)
			return false;
		i = j - 1;
	}
	return cx->diags.errors == 0;
}

/* the passes of cmd after the analysis every command shares (those not
 * RUN_ALL), on a module CMD_ANALYSE's passes accepted: run_passes(cmd) is
 * run_passes(CMD_ANALYSE) then this (one analysis, several outputs) */
bool run_tail_passes(Ctx *cx, Module *m, Command cmd, Str *out)
{
	Pipe p = {cx, m, cmd, out, 0};
	for (int i = 0; i < NPASSES; i++)
		if (passes[i].runs != RUN_ALL && (passes[i].runs & (1u << cmd)) && !passes[i].run(&p, NULL))
			return false;
	return cx->diags.errors == 0;
}

bool check_module(Ctx *cx, Module *m) { return run_passes(cx, m, CMD_ANALYSE, NULL, NULL, NULL); }

bool emit_module(Ctx *cx, Module *m, const EmitOptions *o, Str *out)
{
	if (o && o->target_override)
		m->target = o->target_override;
	return run_passes(cx, m, CMD_EMIT, NULL, out, NULL);
}
