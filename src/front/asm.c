/* Inline PTX blocks (asm) and register initialisation (init): the check and
 * emit hooks of their stmt.def rows, and the helpers they share. A
 * placeholder that names a local buffer's region expands to the .b32 words
 * holding it, in ascending register order (the order the buffer's layout
 * gives its registers: the fragment order of the instruction it feeds). */
#include "tilepx.h"
#include "variants/partition.h"

#include <stdlib.h>
#include <string.h>

Affine affine_subst(const Affine *a, const int *vars, const int64_t *vals, int n)
{
	Affine r = {.c = a->c};
	for (int i = 0; i < a->n; i++) {
		int j = 0;
		while (j < n && vars[j] != a->t[i].var)
			j++;
		if (j < n)
			r.c += a->t[i].k * vals[j]; /* ranges checked: regions stay in bounds */
		else
			r.t[r.n++] = a->t[i];
	}
	return r;
}

static Region *subst_region(Arena *ar, const Region *r, const AsmBlock *a, const int64_t *vals)
{
	Region *o = region_dup(ar, r);
	for (int d = 0; d < r->ndim; d++) {
		o->begin[d] = affine_subst(&r->begin[d], a->uvar, vals, a->nunroll);
		o->end[d] = affine_subst(&r->end[d], a->uvar, vals, a->nunroll);
	}
	return o;
}

/* instance i of the block's unroll space: index values, first index slowest */
static void instance_vals(const AsmBlock *a, int64_t i, int64_t *vals)
{
	for (int u = a->nunroll - 1; u >= 0; u--) {
		vals[u] = i % a->uext[u];
		i /= a->uext[u];
	}
}

static int64_t instance_count(const AsmBlock *a)
{
	int64_t n = 1;
	for (int u = 0; u < a->nunroll; u++)
		n *= a->uext[u];
	return n;
}

static int64_t thread_scale(Axis a)
{
	switch (a) {
	case AX_WARPID: case AX_WID_IN_WG: return 32;
	case AX_WGID: return 128;
	default: return 1;
	}
}

/* the words of a local buffer that a constant region covers, ascending;
 * false (why set) unless every thread of the owner holds whole words */
static bool region_words(Arena *ar, const Kernel *k, const Region *r, int **words, int *nwords, const char **why)
{
	const Buffer *b = r->buf;
	int es = dtype_bytes(b->dt);
	int64_t wpe = es > 4 ? es / 4 : 1, epw = es < 4 ? 4 / es : 1;
	int64_t nw = (b->regs * es + 3) / 4;
	int64_t owner = scope_threads(b->owner, k->threads);
	int64_t begin[MAX_DIMS], elems = 1;
	for (int d = 0; d < b->ndim; d++) {
		begin[d] = r->all[d] ? 0 : r->begin[d].c;
		elems *= r->ext[d];
	}
	/* per (thread, word): elements seen; scratch, freed here (a block may
	 * expand this once per instance and placeholder) */
	unsigned char *seen = calloc((size_t)(owner * nw), 1);
	bool *used = calloc((size_t)nw, sizeof(bool));
	bool ok = false;
	if (!seen || !used) {
		*why = "out of memory";
		goto done;
	}
	for (int64_t x = 0; x < elems; x++) {
		int64_t rem = x, flat = 0, stride = 1;
		int64_t c[MAX_DIMS];
		for (int d = b->ndim - 1; d >= 0; d--) {
			c[d] = begin[d] + rem % r->ext[d];
			rem /= r->ext[d];
		}
		for (int d = b->ndim - 1; d >= 0; d--) {
			flat += c[d] * stride;
			stride *= b->shape[d];
		}
		int64_t at0[AX_COUNT];
		lay_apply_flat(&b->layout, flat, at0);
		for (int64_t rep = 0; rep < lay_replicas(&b->layout); rep++) { /* every copy's thread */
			int64_t at[AX_COUNT], t = 0;
			memcpy(at, at0, sizeof at);
			lay_add_replica(&b->layout, rep, at);
			for (int a = AX_LANEID; a <= AX_TX; a++)
				t += at[a] * thread_scale((Axis)a);
			for (int64_t j = 0; j < wpe; j++) {
				int64_t w = at[AX_M] * es / 4 + j;
				if (t < 0 || t >= owner || w < 0 || w >= nw) {
					*why = "register outside the buffer";
					goto done;
				}
				seen[t * nw + w]++;
				used[w] = true;
			}
		}
	}
	int n = 0;
	for (int64_t w = 0; w < nw; w++)
		n += used[w];
	*words = arena_alloc(ar, sizeof(int) * (size_t)(n ? n : 1));
	n = 0;
	for (int64_t w = 0; w < nw; w++)
		if (used[w])
			(*words)[n++] = (int)w;
	*nwords = n;
	for (int64_t t = 0; t < owner; t++)
		for (int i = 0; i < n; i++)
			if (seen[t * nw + (*words)[i]] != epw) {
				*why = arena_printf(ar, "it covers part of a register (thread %lld of the %s, register %d)",
				                    (long long)t, scope_name(b->owner), (*words)[i]);
				goto done;
			}
	ok = true;
done:
	free(seen);
	free(used);
	return ok;
}

/* ---- the instructions a block names ----
 * Read as ptxas reads them: statements end at ';', '{' and '}' open and
 * close scopes, '/' '*' comments and strings are skipped, a statement may
 * start with labels ('L:') and a guard ('@p', '@!p'); directives ('.reg')
 * name no instruction; a placeholder is an operand. */
typedef struct AsmIns {
	const char *op; /* the opcode, n bytes */
	size_t n;
	Loc loc;
} AsmIns;

static bool op_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '$' ||
	       c == '.' || c == ':' || c == '%';
}

/* top_label (may be NULL): where the first label outside every '{ }' scope
 * is, line 0 when none */
static int asm_instructions(Arena *ar, const AsmBlock *a, AsmIns **out, Loc *top_label)
{
	/* the block as one text, placeholders as 'x', and each byte's location */
	size_t len = 0;
	for (size_t i = 0; i < a->n; i++)
		len += (a->p[i].kind == ASM_TEXT ? strlen(a->p[i].text) : 1) + 1;
	char *t = arena_alloc(ar, len + 1);
	Loc *at = arena_alloc(ar, sizeof(Loc) * (len + 1));
	size_t n = 0;
	for (size_t i = 0; i < a->n; i++) {
		const AsmPiece *pc = &a->p[i];
		if (i && pc->line != a->p[i - 1].line) {
			at[n] = pc->loc;
			t[n++] = '\n';
		}
		if (pc->kind != ASM_TEXT) {
			at[n] = pc->loc;
			t[n++] = 'x';
			continue;
		}
		for (size_t j = 0; pc->text[j]; j++) {
			at[n] = (Loc){pc->loc.line, pc->loc.col + (int)j};
			t[n++] = pc->text[j];
		}
	}
	t[n] = 0;
	int cap = 8, count = 0;
	AsmIns *ins = arena_alloc(ar, sizeof(AsmIns) * (size_t)cap);
	size_t i = 0;
	int depth = 0;        /* '{ }' scopes */
	bool in_stmt = false; /* past the opcode: the operands run to ';' */
	if (top_label)
		*top_label = (Loc){0, 0};
	while (i < n) {
		char c = t[i];
		if (c == '/' && t[i + 1] == '*') {
			const char *e = strstr(t + i + 2, "*/");
			i = e ? (size_t)(e - t) + 2 : n;
			continue;
		}
		if (c == '"') {
			i++;
			while (i < n && t[i] != '"')
				i += t[i] == '\\' && i + 1 < n ? 2 : 1;
			i++;
			continue;
		}
		if (c == ';') {
			in_stmt = false;
			i++;
			continue;
		}
		if (in_stmt || c == '{' || c == '}' || c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ',') {
			if (!in_stmt)
				depth += c == '{' ? 1 : c == '}' ? -1 : 0;
			i++;
			continue;
		}
		if (c == '@') { /* a guard: @p, @!p, @%p */
			i++;
			if (i < n && t[i] == '!')
				i++;
			while (i < n && op_char(t[i]))
				i++;
			continue;
		}
		size_t s = i;
		while (i < n && op_char(t[i]))
			i++;
		if (i == s) { /* not an instruction's first byte: ptxas's syntax error */
			in_stmt = true;
			i++;
			continue;
		}
		if (t[i - 1] == ':' && (i - s < 2 || t[i - 2] != ':')) { /* a label */
			if (top_label && depth == 0 && !top_label->line)
				*top_label = at[s];
			continue;
		}
		in_stmt = true;
		if (t[s] == '.') /* a directive */
			continue;
		if (count == cap) {
			AsmIns *g = arena_alloc(ar, sizeof(AsmIns) * (size_t)cap * 2);
			memcpy(g, ins, sizeof(AsmIns) * (size_t)cap);
			ins = g;
			cap *= 2;
		}
		ins[count++] = (AsmIns){t + s, i - s, at[s]};
	}
	*out = ins;
	return count;
}

/* instruction families that ptxas ties to a target or to a .version above
 * the target's own, outside ptx_templates/'s forms; the longest dotted
 * prefix decides. Each checked with ptxas 13.0: one .version lower and one
 * target lower are errors ("requires PTX ISA .version", "requires .target"). */
static const struct {
	const char *prefix;
	int min_ptx;
	Cap cap;
} asm_families[] = {
	{"cp.async", 70, CAP_SM80},
	{"cp.async.mbarrier.arrive", 70, CAP_SM80},
	{"cp.async.bulk", 80, CAP_SM90},
	{"cp.reduce.async.bulk", 80, CAP_SM90},
	{"fence.proxy.async", 80, CAP_SM90},
	{"mbarrier", 70, CAP_SM80},
	{"mbarrier.try_wait", 78, CAP_SM90},
	{"mbarrier.expect_tx", 80, CAP_SM90},
	{"mbarrier.arrive.expect_tx", 80, CAP_SM90},
	/* scopes and the cluster window on mbarrier ops (ptxas 13.0: .release/.acquire
	 * need 8.0, .cluster and .shared::cluster sm_90, .relaxed 8.6) */
	{"mbarrier.arrive.release", 80, CAP_SM80},
	{"mbarrier.arrive.release.cluster", 80, CAP_SM90},
	{"mbarrier.arrive.shared::cluster", 80, CAP_SM90},
	{"mbarrier.arrive.relaxed", 86, CAP_SM90},
	{"mbarrier.arrive.expect_tx.relaxed", 86, CAP_SM90},
	{"mbarrier.try_wait.acquire", 80, CAP_SM90},
	{"mbarrier.try_wait.parity.acquire", 80, CAP_SM90},
	{"mbarrier.try_wait.relaxed", 86, CAP_SM90},
	{"mbarrier.try_wait.parity.relaxed", 86, CAP_SM90},
	{"setmaxnreg", 80, CAP_SETMAXNREG},
	{"barrier.cluster", 78, CAP_SM90},
	{"elect.sync", 80, CAP_SM90},
	{"mapa", 78, CAP_SM90},
	{"getctarank", 78, CAP_SM90},
	{"stmatrix", 78, CAP_SM90},
	{"redux.sync", 70, CAP_SM80},
	{"griddepcontrol", 78, CAP_SM90},
	{"tcgen05", 86, CAP_TCGEN05},
};

/* what an opcode needs: a form of ptx_templates/ (*form >= 0) or a family;
 * false when tilepx does not know it (ptxas decides) */
static bool asm_need(const AsmIns *in, int *min_ptx, Cap *cap, int *form)
{
	*form = -1;
	for (int f = 0; f < FORM_COUNT; f++) {
		size_t fl = strcspn(ptx_forms[f].text, " ;");
		if (fl == in->n && !memcmp(ptx_forms[f].text, in->op, fl)) {
			*form = f;
			*min_ptx = ptx_forms[f].min_ptx;
			*cap = ptx_forms[f].cap;
			return true;
		}
	}
	size_t best = 0;
	for (size_t i = 0; i < sizeof asm_families / sizeof asm_families[0]; i++) {
		size_t pl = strlen(asm_families[i].prefix);
		if (pl > best && pl <= in->n && !memcmp(in->op, asm_families[i].prefix, pl) &&
		    (pl == in->n || in->op[pl] == '.')) {
			best = pl;
			*min_ptx = asm_families[i].min_ptx;
			*cap = asm_families[i].cap;
		}
	}
	return best > 0;
}

/* ---- checks ---- */


/* the registers each operand of a known collective takes: mma shapes */
static const struct {
	const char *prefix;
	int nops;
	int words[4];
} asm_shapes[] = {
	{"mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", 4, {4, 4, 2, 4}},
	{"mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32", 4, {4, 4, 2, 4}},
	{"mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32", 4, {4, 2, 1, 4}},
};

static bool local_region(Ctx *cx, Kernel *k, Region *r, const char *what)
{
	if (!check_region_of(cx, k, r))
		return false;
	if (r->buf->mem != MEM_LOCAL) {
		diag_error(cx, r->loc, "%s names registers; '%s' is %s, not local", what, r->buf->name, mem_name(r->buf->mem));
		return false;
	}
	return true;
}

static void fmt_ext(Str *s, const Region *r)
{
	int n = 0;
	str_putc(s, '[');
	for (int d = 0; d < r->ndim; d++)
		if (r->ext[d] != 1)
			str_printf(s, "%s%lld", n++ ? ", " : "", (long long)r->ext[d]);
	str_putc(s, ']');
}

/* the two non-unit extents of a 2-D operand */
static bool mat_dims(const Region *r, int64_t *rows, int64_t *cols)
{
	int64_t e[2];
	int n = 0;
	for (int d = 0; d < r->ndim; d++)
		if (r->ext[d] != 1) {
			if (n == 2)
				return false;
			e[n++] = r->ext[d];
		}
	while (n < 2)
		e[n++] = 1;
	*rows = e[0];
	*cols = e[1];
	return true;
}

static void check_mma_clause(Ctx *cx, Kernel *k, AsmBlock *a)
{
	static const char *nm[3] = {"accumulator", "A", "B"};
	for (int i = 0; i < 3; i++)
		if (!local_region(cx, k, a->mma[i], "an mma operand"))
			return;
	for (int i = 0; i < 3; i++)
		if (a->mma[i]->buf->layout.nrep) {
			diag_error(cx, a->mma[i]->loc, "mma %s '%s' is replicated ('+ R[...]'); mma operands have the "
			           "instruction's own layout", nm[i], a->mma[i]->buf->name);
			return;
		}
	const Buffer *c = a->mma[0]->buf, *A = a->mma[1]->buf, *B = a->mma[2]->buf;
	if (c->dt != DT_F32 || !((A->dt == DT_F16 && B->dt == DT_F16) || (A->dt == DT_BF16 && B->dt == DT_BF16))) {
		diag_error(cx, a->mma_loc, "mma takes an f32 accumulator and f16 (or bf16) A and B; got %s, %s, %s",
		           dtype_name(c->dt), dtype_name(A->dt), dtype_name(B->dt));
		return;
	}
	if (c->owner != A->owner || c->owner != B->owner) {
		diag_error(cx, a->mma_loc, "mma operands must have the same owner (%s, %s, %s)", scope_name(c->owner),
		           scope_name(A->owner), scope_name(B->owner));
		return;
	}
	int64_t m, n, ak, am, bk, bn;
	for (int i = 0; i < 3; i++) {
		int64_t r0, c0;
		if (!mat_dims(a->mma[i], &r0, &c0)) {
			diag_error(cx, a->mma[i]->loc, "mma %s must be a 2-D region", nm[i]);
			return;
		}
	}
	mat_dims(a->mma[0], &m, &n);
	mat_dims(a->mma[1], &am, &ak);
	mat_dims(a->mma[2], &bk, &bn);
	if (am != m || bn != n || ak != bk) {
		Str x = {0}, y = {0}, z = {0};
		fmt_ext(&x, a->mma[0]);
		fmt_ext(&y, a->mma[1]);
		fmt_ext(&z, a->mma[2]);
		diag_error(cx, a->mma_loc, "mma shapes do not chain: C %s, A %s, B %s (want C [M, N], A [M, K], B [K, N])",
		           x.s, y.s, z.s);
		str_free(&x);
		str_free(&y);
		str_free(&z);
	}
}

/* the target and .version each instruction needs, at the instruction */
static void check_asm_needs(Ctx *cx, const Module *m, const AsmBlock *a)
{
	AsmIns *ins;
	Loc label;
	int nins = asm_instructions(cx->arena, a, &ins, &label);
	/* ptxas: "Duplicate definition of label" once the block is emitted twice */
	if (label.line && (instance_count(a) > 1 || a->copied)) {
		diag_error(cx, label, "a label outside a '{ }' scope in an asm block that is emitted %s",
		           a->copied ? "once per copy of an unrolled repeat" : "once per value of its indices");
		diag_note(cx, "PTX labels are defined once per scope: put the block's lines inside '{' and '}'");
	}
	for (int i = 0; i < nins; i++) {
		int v, f;
		Cap cap;
		if (!asm_need(&ins[i], &v, &cap, &f))
			continue;
		if (!target_has(m->target, cap)) {
			diag_error(cx, ins[i].loc, "'%.*s' needs target %s (target is %s)", (int)ins[i].n, ins[i].op,
			           cap_name(cap), m->target->name);
		} else if (m->ptx_version && m->ptx_version < v) {
			diag_error(cx, ins[i].loc, "'%.*s' needs PTX %d.%d; the module declares %d.%d", (int)ins[i].n, ins[i].op,
			           v / 10, v % 10, m->ptx_version / 10, m->ptx_version % 10);
			diag_note(cx, "the version line is line %d (without it tilepx picks the lowest version that fits)",
			          m->ptx_loc.line);
		}
	}
}

/* each placeholder: register regions local, values within 32 bits,
 * addresses of shared or param regions */
static void check_asm_placeholders(Ctx *cx, Kernel *k, AsmBlock *a)
{
	for (size_t i = 0; i < a->n; i++) {
		AsmPiece *pc = &a->p[i];
		if (pc->kind == ASM_REGS) {
			local_region(cx, k, pc->r, "a register placeholder");
		} else if (pc->kind == ASM_VALUE && !pc->text) {
			/* a .u32 register or immediate: exact for every value the
			 * variables (scalars by their facts) can take */
			int64_t lo, hi;
			if (!check_affine_range(k, &pc->val, &lo, &hi) || lo < INT32_MIN || hi > (int64_t)UINT32_MAX)
				diag_error(cx, pc->loc, "placeholder value may leave 32 bits (it ranges over %lld..%lld)", (long long)lo,
				           (long long)hi);
		} else if (pc->kind == ASM_ADDR) {
			if (!check_region_of(cx, k, pc->r))
				continue;
			Mem mm = pc->r->buf->mem;
			if (mm != MEM_SHARED && mm != MEM_GLOBAL) {
				diag_error(cx, pc->r->loc, "'&' takes the address of a shared or param buffer; '%s' is %s",
				           pc->r->buf->name, mem_name(mm));
				continue;
			}
			View v;
			const char *why;
			if (!region_view(cx, k, pc->r, &v, &why))
				diag_error(cx, pc->r->loc, "region of '%s': %s", pc->r->buf->name, why);
		}
	}
}

/* the expansion is bounded: text bytes and placeholders (a register
 * placeholder by its elements, which check_asm_instances visits) per
 * instance; false (with the error) past MAX_ASM_EXPANSION in all */
static bool asm_expansion_fits(Ctx *cx, const Stmt *s, const AsmBlock *a, int64_t ninst)
{
	int64_t size = 0;
	for (size_t i = 0; i < a->n; i++) {
		const AsmPiece *pc = &a->p[i];
		int64_t n = pc->kind == ASM_TEXT ? (int64_t)strlen(pc->text) : 1;
		if (pc->kind == ASM_REGS)
			for (int d = 0; d < pc->r->ndim; d++)
				n *= pc->r->ext[d];
		size += n;
	}
	if (size > MAX_ASM_EXPANSION / ninst) {
		diag_error(cx, s->loc, "asm block expands to %lld instances of size %lld; at most %lld in all", (long long)ninst,
		           (long long)size, (long long)MAX_ASM_EXPANSION);
		diag_note(cx, "size: the block's text bytes plus each placeholder's register elements (at least 1)");
		return false;
	}
	return true;
}

/* the shape (asm_shapes) whose prefix starts a line's text, its index in
 * *ops; NULL when none does */
static const char *line_shape(const char *t, int *ops)
{
	const char *shape = NULL;
	while (*t == ' ' || *t == '\t')
		t++;
	for (size_t f = 0; f < sizeof asm_shapes / sizeof asm_shapes[0]; f++)
		if (!strncmp(t, asm_shapes[f].prefix, strlen(asm_shapes[f].prefix))) {
			shape = asm_shapes[f].prefix;
			*ops = (int)f;
		}
	return shape;
}

/* every instance: placeholders cover whole registers; known shapes get
 * their widths; stops at the first error */
static void check_asm_instances(Ctx *cx, Kernel *k, AsmBlock *a, int64_t ninst)
{
	int before = cx->diags.errors;
	int64_t vals[MAX_ASM_UNROLL];
	for (int64_t in = 0; in < ninst && cx->diags.errors == before; in++) {
		instance_vals(a, in, vals);
		const char *shape = NULL;
		int shape_ops = 0, opi = 0, line = -1;
		for (size_t i = 0; i < a->n && cx->diags.errors == before; i++) {
			AsmPiece *pc = &a->p[i];
			if (pc->line != line) {
				line = pc->line;
				shape = NULL;
				opi = 0;
				if (pc->kind == ASM_TEXT)
					shape = line_shape(pc->text, &shape_ops);
			}
			if (pc->kind != ASM_REGS)
				continue;
			Region *r = subst_region(cx->arena, pc->r, a, vals);
			bool is_const = true;
			for (int d = 0; d < r->ndim && is_const; d++)
				if (!r->all[d] && !affine_is_const(&r->begin[d])) {
					diag_error(cx, r->dim_loc[d],
					           "register placeholders take constant regions (indices of 'asm for', not '%s')",
					           k->var_names[r->begin[d].t[0].var]);
					is_const = false;
				}
			if (!is_const)
				break;
			int *w, nw;
			const char *why = NULL;
			if (!region_words(cx->arena, k, r, &w, &nw, &why)) {
				diag_error(cx, pc->loc, "placeholder '%s' cannot expand to registers: %s", r->name, why);
				break;
			}
			if (shape) {
				int want = opi < asm_shapes[shape_ops].nops ? asm_shapes[shape_ops].words[opi] : -1;
				if (want != nw) {
					if (want < 0)
						diag_error(cx, pc->loc, "%s takes %d register operands; this is operand %d", shape,
						           asm_shapes[shape_ops].nops, opi + 1);
					else
						diag_error(cx, pc->loc, "operand %d of %s takes %d registers, but '%s' expands to %d", opi + 1,
						           shape, want, r->name, nw);
				}
				opi++;
			}
		}
	}
}

void check_asm(Ctx *cx, const Module *m, Kernel *k, Stmt *s)
{
	AsmBlock *a = s->asm_blk;
	int before = cx->diags.errors;
	check_asm_needs(cx, m, a);
	if (cx->diags.errors != before)
		return;
	if (a->mma[0])
		check_mma_clause(cx, k, a);
	check_asm_placeholders(cx, k, a);
	if (cx->diags.errors != before)
		return;
	int64_t ninst = instance_count(a);
	if (asm_expansion_fits(cx, s, a, ninst))
		check_asm_instances(cx, k, a, ninst);
}

void check_init(Ctx *cx, const Module *m, Kernel *k, Stmt *s)
{
	(void)m;
	if (!local_region(cx, k, s->dst, "init"))
		return;
	uint64_t b;
	if (!dtype_int_value(s->dst->buf->dt, s->n, &b)) {
		diag_error(cx, s->dst->loc, "init value %lld is not exact in %s", (long long)s->n, dtype_name(s->dst->buf->dt));
		return;
	}
	for (int d = 0; d < s->dst->ndim; d++)
		if (!s->dst->all[d] && !affine_is_const(&s->dst->begin[d])) {
			diag_error(cx, s->dst->dim_loc[d], "init takes a constant region (registers are named at compile time)");
			return;
		}
	int *w, nw;
	const char *why;
	if (!region_words(cx->arena, k, s->dst, &w, &nw, &why))
		diag_error(cx, s->dst->loc, "init of '%s': %s", s->dst->name, why);
}

/* ---- emission ---- */

static const char *words_operand(Builder *b, Reg *regs, const int *w, int n)
{
	if (n == 1)
		return b_name(b, regs[w[0]]);
	Str s = {0};
	str_putc(&s, '{');
	for (int i = 0; i < n; i++)
		str_printf(&s, "%s%s", i ? ", " : "", b_name(b, regs[w[i]]));
	str_putc(&s, '}');
	char *r = arena_strndup(b->arena, s.s, s.n);
	str_free(&s);
	return r;
}

void emit_init(Emit *e, const Stmt *s)
{
	Builder *b = emit_builder(e);
	const Buffer *buf = s->dst->buf;
	int *w, nw;
	const char *why;
	if (!region_words(b->arena, emit_kernel_of(e), s->dst, &w, &nw, &why))
		return;
	int es = dtype_bytes(buf->dt);
	uint64_t bits = dtype_int_bits(buf->dt, s->n), word = 0;
	if (es >= 4)
		word = bits & 0xffffffffu;
	else
		for (int i = 0; i < 4 / es; i++)
			word |= bits << (i * es * 8);
	b_comment(b, "line %d: init %s, %lld (%d registers)", s->loc.line, s->dst->name, (long long)s->n, nw);
	Reg *regs = emit_local_regs(e, buf);
	for (int i = 0; i < nw; i++) {
		uint64_t v = word;
		if (es == 8)
			v = (w[i] % 2) ? bits >> 32 : bits & 0xffffffffu;
		b_ins(b, FORM_MOV_B32, b_name(b, regs[w[i]]), arena_printf(b->arena, "0x%08llx", (unsigned long long)(v & 0xffffffffu)),
		      NULL);
	}
}

/* the address of a region's first element. A param with runtime strides
 * (runtime extents, 'ld', 'colmajor') goes by its row and column and the
 * launch's row stride, as the ragged copies do: its view's offset is in the
 * proofs' layout, whose row stride is a stand-in. */
static Reg region_address(Emit *e, const Kernel *k, const Region *r)
{
	const Buffer *buf = r->buf;
	if (buf->dynamic) {
		Reg coord[MAX_DIMS] = {{0}};
		for (int d = 0; d < buf->ndim; d++)
			coord[d] = emit_affine(e, &r->begin[d]);
		if (buf->ndim == 1)
			return emit_dyn_address(e, k, r, coord[0], coord[0]);
		return emit_dyn_address(e, k, r, coord[dyn_outer(buf)], coord[dyn_inner(buf)]);
	}
	View v;
	const char *why;
	if (!region_view(NULL, k, r, &v, &why)) { /* check proved the view: a tilepx bug */
		Builder *b = emit_builder(e);
		if (!b->internal)
			b->internal = arena_printf(b->arena, "no view of an asm address region of '%s': %s", buf->name, why);
		return b_const32(b, 0);
	}
	return emit_address(e, buf, emit_affine(e, &v.off[AX_M]));
}

void emit_asm(Emit *e, const Stmt *s)
{
	Builder *b = emit_builder(e);
	const Kernel *k = emit_kernel_of(e);
	const AsmBlock *a = s->asm_blk;
	int64_t ninst = instance_count(a);
	int64_t vals[MAX_ASM_UNROLL];
	b_comment(b, "line %d: asm (%lld instances)", s->loc.line, (long long)ninst);
	for (int64_t in = 0; in < ninst; in++) {
		instance_vals(a, in, vals);
		/* operands first: values and addresses need instructions of their own */
		const char **ops = arena_alloc(b->arena, sizeof(char *) * (a->n ? a->n : 1));
		for (size_t i = 0; i < a->n; i++) {
			const AsmPiece *pc = &a->p[i];
			if (pc->kind == ASM_TEXT) {
				ops[i] = pc->text;
			} else if (pc->kind == ASM_REGS) {
				Region *r = subst_region(b->arena, pc->r, a, vals);
				int *w, nw;
				const char *why;
				if (!region_words(b->arena, k, r, &w, &nw, &why))
					return;
				ops[i] = words_operand(b, emit_local_regs(e, r->buf), w, nw);
			} else if (pc->kind == ASM_VALUE) {
				if (pc->text) {
					ops[i] = b_name(b, !strcmp(pc->text, "tid") ? emit_tid(e) : emit_scope_tid(e, SC_WARP));
				} else {
					Affine v = affine_subst(&pc->val, a->uvar, vals, a->nunroll);
					ops[i] = affine_is_const(&v) ? b_imm(b, v.c) : b_name(b, emit_affine(e, &v));
				}
			} else {
				ops[i] = b_name(b, region_address(e, k, subst_region(b->arena, pc->r, a, vals)));
			}
		}
		/* one PTX line per block line, trailing blanks dropped */
		Str ln = {0};
		for (size_t i = 0; i <= a->n; i++) {
			if (i == a->n || (i && a->p[i].line != a->p[i - 1].line)) {
				while (ln.n && (ln.s[ln.n - 1] == ' ' || ln.s[ln.n - 1] == '\t'))
					ln.s[--ln.n] = 0;
				if (ln.n)
					str_printf(&b->body, "%s%s\n", b->indent, ln.s);
				ln.n = 0;
				if (ln.s)
					ln.s[0] = 0;
			}
			if (i < a->n)
				str_puts(&ln, ops[i]);
		}
		str_free(&ln);
	}
	/* the instructions the block names raise .version and need their
	 * capability (check located any that the target lacks) */
	AsmIns *ins;
	int nins = asm_instructions(b->arena, a, &ins, NULL);
	Loc stmt_at = b->at;
	for (int i = 0; i < nins; i++) {
		int v, f;
		Cap cap;
		if (!asm_need(&ins[i], &v, &cap, &f))
			continue;
		b->at = ins[i].loc;
		if (f >= 0)
			b_use_form(b, (FormId)f);
		else
			b_need_ptx(b, v, arena_strndup(b->arena, ins[i].op, ins[i].n));
	}
	b->at = stmt_at;
}
