/* The public API: one arena per compilation, nothing global. */
#define _POSIX_C_SOURCE 200809L
#include "tilepx.h"
#include "abi.h"
#include "../include/tilepx/tilepx.h"

#include <stdlib.h>
#include <string.h>

const char *tilepx_version(void) { return TILEPX_VERSION; }

/* a result that carries one argument error and no output */
static int usage_error(tilepx_result *out, const char *msg)
{
	out->ok = 0;
	out->diagnostics = strdup(msg);
	return 0;
}

/* every -D names a scalar param of some kernel or a constant (the parser
 * pinned or used each) */
static bool defines_used(Ctx *cx, const Module *m)
{
	for (int i = 0; i < cx->ndefines; i++) {
		const char *eq = strchr(cx->defines[i], '=');
		size_t n = eq ? (size_t)(eq - cx->defines[i]) : strlen(cx->defines[i]);
		bool found = false;
		for (size_t j = 0; j < m->nkernels && !found; j++)
			for (size_t s = 0; s < m->kernels[j]->nscalars && !found; s++)
				found = strlen(m->kernels[j]->scalars[s].name) == n &&
				        !strncmp(m->kernels[j]->scalars[s].name, cx->defines[i], n);
		for (size_t c = 0; c < m->nconsts && !found; c++)
			found = strlen(m->consts[c]) == n && !strncmp(m->consts[c], cx->defines[i], n);
		if (!found)
			diag_error(cx, (Loc){0, 0},
			           "-D %s: no 'define %.*s' and no kernel has a scalar param '%.*s' (-D sets a constant or pins a "
			           "scalar param)",
			           cx->defines[i], (int)n, cx->defines[i], (int)n, cx->defines[i]);
	}
	return cx->diags.errors == 0;
}

/* parse, then the mode's pass list (src/api/driver.c); diagnostics in cx */
static bool compile_module(Ctx *cx, const char *path, const char *src, size_t len, const char *target,
                           Command cmd, const char *dump_after, const CompileOptions *copt, Str *text, Str *dump,
                           Module **mod)
{
	cx->diags.file = path;
	cx->diags.src = src;
	cx->diags.len = len;
	if (copt) {
		cx->lineinfo = copt->lineinfo;
		cx->lineinfo_file = copt->lineinfo_file;
		cx->defines = copt->defines;
		cx->ndefines = copt->ndefines;
	}
	const Target *override = NULL;
	if (target && !(override = target_find(target)))
		diag_error(cx, (Loc){0, 0}, "unknown target '%s' (known: %s)", target, target_list());
	if (cx->diags.errors)
		return false;
	Module *m = parse_module(cx, path, src, len);
	if (cx->diags.errors)
		return false;
	if (override)
		m->target = override;
	if (!defines_used(cx, m))
		return false;
	*mod = m;
	return run_passes(cx, m, cmd, dump_after, text, dump);
}

static Command command_of(tilepx_mode mode)
{
	static const Command cmd[] = {[TILEPX_CHECK] = CMD_CHECK, [TILEPX_EMIT] = CMD_EMIT,
	                              [TILEPX_EXPLAIN] = CMD_EXPLAIN, [TILEPX_EXPLAIN_JSON] = CMD_EXPLAIN_JSON};
	return cmd[mode];
}

/* the layout of b puts dim d's elements strides[d] apart (one iter per dim,
 * no swizzle): row-major, or such a declared layout */
static bool per_dim_strides(const Buffer *b, long long *strides)
{
	if (!b->has_layout) { /* row-major */
		int64_t st = 1; /* an unbound param's capacities (2^31) may pass 64 bits: 0, unused */
		for (int d = b->ndim - 1; d >= 0; d--) {
			strides[d] = st;
			if (d && !mul_ok(st, b->shape[d], &st))
				st = 0;
		}
		return true;
	}
	if (b->layout.n != b->ndim || b->layout.sw.on)
		return false;
	for (int d = 0; d < b->ndim; d++) {
		if (b->layout.it[d].ext != b->shape[d])
			return false;
		strides[d] = b->layout.it[d].stride;
	}
	return true;
}

/* pointer param b as a launcher checks a buffer against it */
static void fill_param(const Kernel *k, const Buffer *b, tilepx_param *p)
{
	bool bound = !k->nscalars || k->bound_vals;
	snprintf(p->name, sizeof p->name, "%s", b->name);
	snprintf(p->dtype, sizeof p->dtype, "%s", dtype_name(b->dt));
	p->elem_bytes = dtype_bytes(b->dt);
	p->rank = b->ndim < 5 ? b->ndim : 5;
	p->ld_scalar = b->ld_scalar - 1;
	p->colmajor = b->colmajor;
	p->tma = b->tma;
	p->line = b->loc.line;
	p->col = b->loc.col;
	p->storage = bound ? b->storage : 0;
	for (int d = 0; d < p->rank; d++) {
		p->dim_scalar[d] = b->dyn_dim[d] - 1;
		p->dims[d] = bound || !b->dyn_dim[d] ? b->shape[d] : 0;
	}
	if (b->colmajor || b->ld_scalar) { /* rank 2, lines ld apart (src/layout/bind.c); known once bound */
		if (!bound)
			return;
		int64_t ld = b->ld_scalar ? k->bound_vals[b->ld_scalar - 1] : b->shape[b->colmajor ? 0 : 1];
		p->strides[0] = b->colmajor ? 1 : ld;
		p->strides[1] = b->colmajor ? ld : 1;
		return;
	}
	long long st[MAX_DIMS];
	p->has_layout = !b->dynamic && !per_dim_strides(b, st); /* a dynamic one is row-major */
	if (b->dynamic)
		per_dim_strides(b, st);
	for (int d = 0; d < p->rank && bound && !p->has_layout; d++)
		p->strides[d] = st[d];
}

/* a kernel's launch facts, from the checked module; kernel param indices
 * from its launch ABI (src/abi.h) */
void launch_record(Ctx *cx, const Kernel *k, tilepx_launch *l)
{
	KernelAbi abi = kernel_abi(cx->arena, k);
	memset(l, 0, sizeof *l);
	snprintf(l->kernel, sizeof l->kernel, "%s", k->name);
	l->line = k->loc.line;
	l->col = k->loc.col;
	for (size_t i = 0; i < k->nbufs; i++)
		if (k->bufs[i]->mem == MEM_GLOBAL && k->bufs[i]->param_index < TILEPX_MAX_PARAMS)
			fill_param(k, k->bufs[i], &l->params[k->bufs[i]->param_index]);
	l->grid[0] = k->grid;
	l->grid[1] = k->grid_y;
	l->block = (int)k->threads;
	l->cluster[0] = k->cluster_x;
	l->cluster[1] = k->cluster_x ? k->cluster_y : 0;
	l->nparams = k->nparams;
	l->dynamic_shared_bytes = k->dyn_shared;
	TensorMapArgs a[TILEPX_MAX_TENSOR_MAPS];
	int n = kernel_tensor_maps(cx, k, a, TILEPX_MAX_TENSOR_MAPS);
	l->ntensor_maps = n < TILEPX_MAX_TENSOR_MAPS ? n : TILEPX_MAX_TENSOR_MAPS;
	l->nscalars = (int)k->nscalars;
	l->needs_values = k->nscalars && !k->bound_vals;
	for (size_t i = 0; i < k->nscalars && i < TILEPX_MAX_SCALARS; i++) {
		tilepx_scalar *sc = &l->scalars[i];
		snprintf(sc->name, sizeof sc->name, "%s", k->scalars[i].name);
		sc->bytes = dtype_bytes(k->scalars[i].dt);
		sc->is_signed = k->scalars[i].dt == DT_I32 || k->scalars[i].dt == DT_I64;
		sc->kernel_param_index = abi_position(&abi, ABI_SCALAR, (int)i);
		sc->value = k->bound_vals ? k->bound_vals[i] : 0;
	}
	if (l->needs_values) {
		if (k->grid_var[0] >= 0)
			l->grid[0] = 0;
		if (k->grid_var[1] >= 0)
			l->grid[1] = 0;
	}
	for (int i = 0; i < l->ntensor_maps; i++) {
		tilepx_tensor_map *t = &l->tensor_maps[i];
		snprintf(t->param, sizeof t->param, "%s", a[i].buf->name);
		t->param_index = a[i].buf->param_index;
		t->kernel_param_index = abi_position(&abi, ABI_TENSOR_MAP, i);
		t->data_type = a[i].dtype;
		t->rank = a[i].rank;
		for (int d = 0; d < a[i].rank; d++) {
			t->global_dims[d] = a[i].dims[d];
			t->box_dims[d] = a[i].box[d];
			t->element_strides[d] = a[i].elem_strides[d];
			if (d)
				t->global_strides[d - 1] = a[i].strides[d - 1];
		}
		for (int d = 0; d < a[i].rank && l->needs_values; d++) { /* runtime dims: known at launch */
			int src = a[i].rank - 1 - d;
			if (a[i].buf->dyn_dim[src])
				t->global_dims[d] = 0;
			if (d && a[i].buf->dynamic)
				t->global_strides[d - 1] = 0;
		}
		t->interleave = a[i].interleave;
		t->swizzle = a[i].swizzle;
		t->l2_promotion = a[i].l2_promotion;
		t->oob_fill = a[i].oob_fill;
	}
}

/* bind kernel k's scalars to "NAME=V" values; false with an error in cx */
/* where kernel_bind's first complaint about vals is: the first fact broken,
 * in its order (each scalar's range, then its facts as written), or the
 * kernel when a range, the grid or a param is what breaks */
static Loc broken_at(const Kernel *k, const int64_t *vals)
{
	for (size_t i = 0; i < k->nscalars; i++) {
		const Scalar *sc = &k->scalars[i];
		if (vals[i] < 0 || vals[i] > SCALAR_MAX)
			return k->loc;
		for (size_t f = 0; f < sc->nfacts; f++) {
			const struct Fact *ft = &sc->facts[f];
			bool holds = ft->op == '>' ? vals[i] >= ft->v : ft->op == '<' ? vals[i] <= ft->v : vals[i] % ft->v == 0;
			if (!holds)
				return ft->loc.line ? ft->loc : k->loc;
		}
	}
	return k->loc;
}

static bool bind_sets(Ctx *cx, Kernel *k, const char *const *sets, int nsets)
{
	if (!k->nscalars)
		return true;
	int64_t *vals = arena_alloc(cx->arena, sizeof(int64_t) * k->nscalars);
	for (size_t i = 0; i < k->nscalars; i++) {
		const char *nm = k->scalars[i].name;
		bool bad = false;
		bool given = dtype_is_float_scalar(k->scalars[i].dt)
		                     ? kernel_set_float(sets, nsets, nm, k->scalars[i].dt, &vals[i], &bad)
		                     : kernel_set_value(sets, nsets, nm, &vals[i], &bad);
		if (!given || bad) {
			diag_error(cx, k->scalars[i].loc, "scalar param '%s' of kernel '%s' has no value (pass \"%s=N\")", nm,
			           k->name, nm);
			return false;
		}
	}
	char why[256];
	if (!kernel_bind(k, vals, why, sizeof why)) {
		diag_error(cx, broken_at(k, vals), "kernel '%s': %s", k->name, why);
		return false;
	}
	return true;
}

/* what tilepx_launches* asks for: the launch facts of every kernel, or of
 * the one named `only` (NULL: every kernel; "": the first) */
typedef struct LaunchReq {
	tilepx_launch *out;
	int max, n;
	const char *const *sets;
	int nsets;
	const char *only;
} LaunchReq;

static bool wanted(const LaunchReq *q, const Kernel *k)
{
	return !q->only || (q->only[0] ? !strcmp(q->only, k->name) : q->n == 0);
}

/* each wanted kernel's launch facts, bound to q's values when it has them */
static bool fill_launches(Ctx *cx, Module *mod, LaunchReq *q)
{
	for (size_t i = 0; i < mod->nkernels; i++) {
		Kernel *k = mod->kernels[i];
		if (k->is_func || k->is_extern || !wanted(q, k))
			continue;
		if (q->sets && !bind_sets(cx, k, q->sets, q->nsets))
			return false;
		if (q->n < q->max)
			launch_record(cx, k, &q->out[q->n]);
		q->n++;
	}
	return true;
}

/* a compilation's result once its passes ran: --dump-after's state and the
 * diagnostics, and the output (text's buffer moves to out, dump is emptied) */
static bool result_of(Ctx *cx, tilepx_mode mode, bool ok, Str *text, Str *dump, tilepx_diagnostics *list,
                      tilepx_result *out)
{
	if (text->failed) {
		str_free(text);
		diag_error(cx, (Loc){0, 0}, "out of memory while writing the output");
		ok = false;
	}
	diag_promote_warnings(cx);
	ok = ok && cx->diags.errors == 0;
	char *d = NULL;
	size_t dn = 0;
	FILE *f = open_memstream(&d, &dn);
	if (f) {
		if (dump->n) /* --dump-after's state, before the diagnostics */
			fwrite(dump->s, 1, dump->n, f);
		diag_print(&cx->diags, f);
		fclose(f);
	}
	str_free(dump);
	if (list && !diag_list_make(&cx->diags, list))
		ok = false; /* (out of memory: the text still says why the input failed, if it did) */
	out->ok = ok;
	out->diagnostics = d;
	/* explain's table is the answer even when a copy has no variant (then exit 1) */
	bool explaining = mode == TILEPX_EXPLAIN || mode == TILEPX_EXPLAIN_JSON;
	if ((ok || explaining) && text->s) {
		out->output = text->s;
		out->output_len = text->n;
	} else {
		str_free(text);
	}
	return ok;
}

static int api_run(const char *path, const char *src, size_t len, const char *target, tilepx_mode mode,
                   tilepx_result *out, LaunchReq *q, const char *dump_after, const DiagOptions *dopt,
                   const CompileOptions *copt, tilepx_diagnostics *list)
{
	if (!out)
		return 0; /* nowhere to report: the documented contract is a non-NULL out */
	memset(out, 0, sizeof *out);
	if (!src && len > 0)
		return usage_error(out, "tilepx_compile: error: src is NULL but len is not 0\n");
	if ((unsigned)mode > TILEPX_EXPLAIN_JSON)
		return usage_error(out, "tilepx_compile: error: mode is not a tilepx_mode value\n");
	Ctx *cx = calloc(1, sizeof *cx);
	Str *text = calloc(1, sizeof *text), *dump = calloc(1, sizeof *dump); /* heap: they outlive a longjmp intact */
	if (!cx || !text || !dump || !(cx->arena = arena_new())) {
		free(cx);
		free(text);
		free(dump);
		return usage_error(out, "tilepx_compile: error: out of memory\n");
	}
	jmp_buf oom;
	if (setjmp(oom)) {
		str_free(text);
		free(text);
		str_free(dump);
		free(dump);
		arena_free(cx->arena);
		free(cx);
		return usage_error(out, "tilepx_compile: error: out of memory\n");
	}
	arena_on_oom(cx->arena, &oom);
	if (dopt)
		cx->diags.opt = *dopt;
	Module *mod = NULL;
	bool ok = compile_module(cx, path ? path : "<input>", src ? src : "", len, target, command_of(mode), dump_after,
	                         copt, text, dump, &mod);
	if (ok && q && mod)
		ok = fill_launches(cx, mod, q);
	if (ok && q && q->only && !q->n && q->only[0])
		diag_error(cx, (Loc){0, 0}, "the program has no kernel named '%s'", q->only);
	else if (ok && q && q->only && !q->n)
		diag_error(cx, (Loc){0, 0}, "the program has no kernel");
	ok = result_of(cx, mode, ok, text, dump, list, out);
	free(dump);
	free(text);
	arena_free(cx->arena);
	free(cx);
	return ok;
}

int tilepx_compile(const char *path, const char *src, size_t len, const char *target, tilepx_mode mode,
                   tilepx_result *out)
{
	return api_run(path, src, len, target, mode, out, NULL, NULL, NULL, NULL, NULL);
}

int compile_dump(const char *path, const char *src, size_t len, const char *target, int mode, const char *dump_after,
                 const DiagOptions *dopt, const CompileOptions *copt, struct tilepx_result *out)
{
	return api_run(path, src, len, target, (tilepx_mode)mode, out, NULL, dump_after, dopt, copt, NULL);
}

static bool options_of(const tilepx_options *o, DiagOptions *d, CompileOptions *c, char *why, size_t n);

static int launches(const char *path, const char *src, size_t len, const char *target, const char *const *sets,
                    int nsets, tilepx_launch *out, int max, tilepx_result *diag, const char *only,
                    const tilepx_options *opts)
{
	if (max < 0 || (max > 0 && !out)) {
		if (diag) {
			memset(diag, 0, sizeof *diag);
			usage_error(diag, "tilepx_launches: error: out is NULL or max is negative\n");
		}
		return -1;
	}
	if (nsets < 0 || (nsets > 0 && !sets)) {
		if (diag) {
			memset(diag, 0, sizeof *diag);
			usage_error(diag, "tilepx_launches_set: error: sets is NULL or nsets is negative\n");
		}
		return -1;
	}
	char why[300], msg[360];
	if (!kernel_sets_check(sets, nsets, why, sizeof why)) { /* a malformed value is never skipped or guessed */
		if (diag) {
			memset(diag, 0, sizeof *diag);
			snprintf(msg, sizeof msg, "tilepx_launches_set: error: sets: %s\n", why);
			usage_error(diag, msg);
		}
		return -1;
	}
	LaunchReq q = {.out = out, .max = max, .sets = sets, .nsets = nsets, .only = only};
	DiagOptions dopt;
	CompileOptions copt;
	if (opts && !options_of(opts, &dopt, &copt, msg, sizeof msg)) {
		if (diag) {
			memset(diag, 0, sizeof *diag);
			usage_error(diag, msg);
		}
		return -1;
	}
	return api_run(path, src, len, opts ? opts->target : target, TILEPX_CHECK, diag, &q, NULL, opts ? &dopt : NULL,
	               opts ? &copt : NULL, NULL)
	               ? q.n
	               : -1;
}

int tilepx_launches(const char *path, const char *src, size_t len, const char *target, tilepx_launch *out, int max,
                    tilepx_result *diag)
{
	return launches(path, src, len, target, NULL, 0, out, max, diag, NULL, NULL);
}

int tilepx_launches_set(const char *path, const char *src, size_t len, const char *target, const char *const *sets,
                        int nsets, tilepx_launch *out, int max, tilepx_result *diag)
{
	static const char *const none[] = {NULL};
	return launches(path, src, len, target, sets || nsets ? sets : none, nsets, out, max, diag, NULL, NULL);
}

int tilepx_launch_of(const char *path, const char *src, size_t len, const char *target, const char *kernel,
                     const char *const *sets, int nsets, tilepx_launch *out, tilepx_result *diag)
{
	tilepx_options o = {.target = target};
	return tilepx_launch_of_ex(path, src, len, kernel, sets, nsets, &o, out, diag);
}

int tilepx_launch_of_ex(const char *path, const char *src, size_t len, const char *kernel, const char *const *sets,
                        int nsets, const tilepx_options *opts, tilepx_launch *out, tilepx_result *diag)
{
	if (nsets == 0) /* nothing to bind: the record as tilepx_launches gives it */
		sets = NULL;
	else if (!sets) /* (launches() says so) */
		nsets = -1;
	return launches(path, src, len, NULL, sets, nsets, out, 1, diag, kernel ? kernel : "", opts) == 1;
}

/* the options as the command line's two structs; false (why says) for
 * malformed defines, as tilepx's usage errors */
static bool options_of(const tilepx_options *o, DiagOptions *d, CompileOptions *c, char *why, size_t n)
{
	*d = (DiagOptions){.werror = o->werror, .no_warnings = o->no_warnings, .json = o->diagnostics_json,
	                   .max_errors = o->max_errors};
	*c = (CompileOptions){.lineinfo = o->lineinfo, .lineinfo_file = o->lineinfo_file, .defines = o->defines,
	                      .ndefines = o->ndefines};
	if (o->ndefines < 0 || (o->ndefines > 0 && !o->defines)) {
		snprintf(why, n, "tilepx: error: defines is NULL or ndefines is negative\n");
		return false;
	}
	char msg[300];
	if (!defines_check(o->defines, o->ndefines, msg, sizeof msg)) {
		snprintf(why, n, "tilepx: error: -D %s\n", msg);
		return false;
	}
	return true;
}

int tilepx_compile_ex(const char *path, const char *src, size_t len, tilepx_mode mode, const tilepx_options *opts,
                      tilepx_result *out, tilepx_diagnostics *diags)
{
	if (diags)
		memset(diags, 0, sizeof *diags);
	if (!opts)
		return api_run(path, src, len, NULL, mode, out, NULL, NULL, NULL, NULL, diags);
	DiagOptions dopt;
	CompileOptions copt;
	char why[400];
	if (!options_of(opts, &dopt, &copt, why, sizeof why)) {
		if (!out)
			return 0;
		memset(out, 0, sizeof *out);
		return usage_error(out, why);
	}
	return api_run(path, src, len, opts->target, mode, out, NULL, NULL, &dopt, &copt, diags);
}

void tilepx_result_free(tilepx_result *r)
{
	if (!r)
		return;
	free(r->output);
	free(r->diagnostics);
	memset(r, 0, sizeof *r);
}

/* ---- one analysis, several outputs: tilepx --batch keeps the analysis of
 * the file it compiled last, and a line on the same file with the same bytes
 * and options (check, emit, emit -lineinfo, explain) runs only the passes
 * after the shared ones (run_tail_passes) on it. Each output starts from the
 * diagnostics the analysis left, so it is the output of a run of its own. */
struct Analysis {
	Ctx *cx;
	Module *m;
	bool ok;    /* the shared passes accepted the module */
	bool spent; /* out of memory in an output: not used again */
	char *path, *src, *target, **defines;
	size_t len;
	int ndefines;
	DiagOptions dopt;
	Diags diags; /* as the shared passes left them, items copied */
	Diag *items;
};

void analysis_free(Analysis *a)
{
	if (!a)
		return;
	if (a->cx)
		arena_free(a->cx->arena);
	free(a->cx);
	for (int i = 0; i < a->ndefines; i++)
		free(a->defines[i]);
	free(a->defines);
	free(a->path);
	free(a->src);
	free(a->target);
	free(a->items);
	free(a);
}

static bool same_str(const char *x, const char *y) { return x == y || (x && y && !strcmp(x, y)); }

bool analysis_is(const Analysis *a, const char *path, const char *src, size_t len, const char *target,
                 const DiagOptions *dopt, const CompileOptions *copt)
{
	if (!a || a->spent || !same_str(a->path, path) || a->len != len || (len && memcmp(a->src, src, len)) ||
	    !same_str(a->target, target) || a->ndefines != copt->ndefines)
		return false;
	for (int i = 0; i < a->ndefines; i++)
		if (strcmp(a->defines[i], copt->defines[i]))
			return false;
	return a->dopt.werror == dopt->werror && a->dopt.no_warnings == dopt->no_warnings &&
	       a->dopt.color == dopt->color && a->dopt.max_errors == dopt->max_errors && a->dopt.json == dopt->json;
}

static bool analysis_copy(Analysis *a, const char *path, const char *src, size_t len, const char *target,
                          const CompileOptions *copt)
{
	a->path = strdup(path);
	a->src = malloc(len + 1);
	a->target = target ? strdup(target) : NULL;
	a->defines = calloc((size_t)copt->ndefines + 1, sizeof *a->defines);
	if (!a->path || !a->src || (target && !a->target) || !a->defines)
		return false;
	memcpy(a->src, src, len);
	a->src[len] = 0;
	a->len = len;
	for (; a->ndefines < copt->ndefines; a->ndefines++)
		if (!(a->defines[a->ndefines] = strdup(copt->defines[a->ndefines])))
			return false;
	return true;
}

/* the passes every command shares on the copied source; false when out of memory */
static bool analyse(Analysis *a, const DiagOptions *dopt)
{
	jmp_buf oom;
	if (setjmp(oom))
		return false;
	arena_on_oom(a->cx->arena, &oom);
	a->dopt = *dopt;
	a->cx->diags.opt = *dopt;
	CompileOptions c = {.defines = (const char *const *)a->defines, .ndefines = a->ndefines};
	a->ok = compile_module(a->cx, a->path, a->src, a->len, a->target, CMD_ANALYSE, NULL, &c, NULL, NULL, &a->m);
	arena_on_oom(a->cx->arena, NULL);
	a->diags = a->cx->diags;
	if (a->diags.n && !(a->items = malloc(sizeof(Diag) * a->diags.n)))
		return false;
	if (a->diags.n)
		memcpy(a->items, a->diags.items, sizeof(Diag) * a->diags.n);
	return true;
}

/* the analysis of a copy of src; NULL when out of memory */
Analysis *analysis_new(const char *path, const char *src, size_t len, const char *target, const DiagOptions *dopt,
                       const CompileOptions *copt)
{
	Analysis *a = calloc(1, sizeof *a);
	if (!a || !analysis_copy(a, path, src, len, target, copt) || !(a->cx = calloc(1, sizeof *a->cx)) ||
	    !(a->cx->arena = arena_new()) || !analyse(a, dopt)) {
		analysis_free(a);
		return NULL;
	}
	return a;
}

/* out of memory in an output: the analysis is not used again */
static int analysis_spent(Analysis *a, Str *text, Str *dump, tilepx_result *out)
{
	a->spent = true;
	if (text)
		str_free(text);
	if (dump)
		str_free(dump);
	free(text);
	free(dump);
	return usage_error(out, "tilepx_compile: error: out of memory\n");
}

/* mode's output of the analysed file, as compile_dump gives it without --dump-after */
int analysis_result(Analysis *a, int mode, const CompileOptions *copt, tilepx_result *out)
{
	memset(out, 0, sizeof *out);
	Ctx *cx = a->cx;
	cx->diags = a->diags; /* the items' block is the analysis's (an arena's: still there), its contents restored */
	if (a->diags.n)
		memcpy(cx->diags.items, a->items, sizeof(Diag) * a->diags.n);
	cx->lineinfo = copt->lineinfo;
	cx->lineinfo_file = copt->lineinfo_file;
	Str *text = calloc(1, sizeof *text), *dump = calloc(1, sizeof *dump);
	jmp_buf oom;
	if (!text || !dump)
		return analysis_spent(a, text, dump, out);
	if (setjmp(oom))
		return analysis_spent(a, text, dump, out);
	arena_on_oom(cx->arena, &oom);
	bool ok = a->ok && run_tail_passes(cx, a->m, command_of((tilepx_mode)mode), text);
	ok = result_of(cx, (tilepx_mode)mode, ok, text, dump, NULL, out);
	arena_on_oom(cx->arena, NULL);
	cx->lineinfo_file = NULL;
	free(text);
	free(dump);
	return ok;
}
