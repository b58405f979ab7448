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

/* parse, then the mode's pass list (src/driver.c); diagnostics in cx */
static bool compile_module(Ctx *cx, const char *path, const char *src, size_t len, const char *target,
                           tilepx_mode mode, const char *dump_after, Str *text, Str *dump, Module **mod)
{
	cx->diags.file = path;
	cx->diags.src = src;
	cx->diags.len = len;
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
	*mod = m;
	static const Command cmd[] = {[TILEPX_CHECK] = CMD_CHECK, [TILEPX_EMIT] = CMD_EMIT,
	                              [TILEPX_EXPLAIN] = CMD_EXPLAIN, [TILEPX_EXPLAIN_JSON] = CMD_EXPLAIN_JSON};
	return run_passes(cx, m, cmd[mode], dump_after, text, dump);
}

/* a kernel's launch facts, from the checked module; kernel param indices
 * from its launch ABI (src/abi.h) */
static void fill_launch(Ctx *cx, const Kernel *k, tilepx_launch *l)
{
	KernelAbi abi = kernel_abi(cx->arena, k);
	memset(l, 0, sizeof *l);
	snprintf(l->kernel, sizeof l->kernel, "%s", k->name);
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
		diag_error(cx, k->loc, "kernel '%s': %s", k->name, why);
		return false;
	}
	return true;
}

static int api_run(const char *path, const char *src, size_t len, const char *target, tilepx_mode mode,
                   tilepx_result *out, tilepx_launch *launches, int max, int *nlaunch, const char *const *sets,
                   int nsets, const char *dump_after)
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
	Module *mod = NULL;
	bool ok = compile_module(cx, path ? path : "<input>", src ? src : "", len, target, mode, dump_after, text, dump,
	                         &mod);
	if (ok && launches && mod)
		for (size_t i = 0; i < mod->nkernels; i++) {
			Kernel *k = mod->kernels[i];
			if (k->is_func || k->is_extern)
				continue;
			if (sets && !bind_sets(cx, k, sets, nsets)) {
				ok = false;
				break;
			}
			if (*nlaunch < max)
				fill_launch(cx, k, &launches[*nlaunch]);
			++*nlaunch;
		}
	if (text->failed) {
		str_free(text);
		diag_error(cx, (Loc){0, 0}, "out of memory while writing the output");
		ok = false;
	}
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
	free(dump);
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
	free(text);
	arena_free(cx->arena);
	free(cx);
	return ok;
}

int tilepx_compile(const char *path, const char *src, size_t len, const char *target, tilepx_mode mode,
                   tilepx_result *out)
{
	return api_run(path, src, len, target, mode, out, NULL, 0, NULL, NULL, 0, NULL);
}

int compile_dump(const char *path, const char *src, size_t len, const char *target, int mode, const char *dump_after,
                 struct tilepx_result *out)
{
	return api_run(path, src, len, target, (tilepx_mode)mode, out, NULL, 0, NULL, NULL, 0, dump_after);
}

static int launches(const char *path, const char *src, size_t len, const char *target, const char *const *sets,
                    int nsets, tilepx_launch *out, int max, tilepx_result *diag)
{
	int n = 0;
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
	return api_run(path, src, len, target, TILEPX_CHECK, diag, out, max, &n, sets, nsets, NULL) ? n : -1;
}

int tilepx_launches(const char *path, const char *src, size_t len, const char *target, tilepx_launch *out, int max,
                    tilepx_result *diag)
{
	return launches(path, src, len, target, NULL, 0, out, max, diag);
}

int tilepx_launches_set(const char *path, const char *src, size_t len, const char *target, const char *const *sets,
                        int nsets, tilepx_launch *out, int max, tilepx_result *diag)
{
	static const char *const none[] = {NULL};
	return launches(path, src, len, target, sets || nsets ? sets : none, nsets, out, max, diag);
}

void tilepx_result_free(tilepx_result *r)
{
	if (!r)
		return;
	free(r->output);
	free(r->diagnostics);
	memset(r, 0, sizeof *r);
}
