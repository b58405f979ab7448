/* Analyses never write into the syntax tree (issue 24): after the check
 * passes (declarations, allocation, each statement's checks) the tree is
 * final; swizzle auto, select, the async analysis, races and emit keep their
 * results in side tables (src/base/stmtmap.c). Each program's statements, regions,
 * buffers and mbarriers are copied byte for byte after the statements pass
 * and compared after emit. The programs cover the two results that used to
 * be written back: the bytes of an mbarrier.expect_tx without a byte count
 * (Stmt.n), computed by the async simulation and by the roles' proof, and
 * the 'swizzle auto' choice (Buffer.layout.sw, its candidates, the tensor
 * map's swizzle), the roles' proof's run-time parity (Mbar.dyn_phase). They also check that the side tables hold those results.
 * And a func's params are described by the ABI (src/emit/abi.c) as emit prints
 * them (docs/language.md, "Device functions"). */
#include "unit.h"
#include "abi.h"
#include <stdlib.h>

typedef struct Snap {
	unsigned char *bytes;
	size_t n, cap;
} Snap;

static void put(Snap *s, const void *p, size_t n)
{
	if (s->n + n > s->cap) {
		s->cap = 2 * (s->n + n);
		s->bytes = realloc(s->bytes, s->cap);
	}
	memcpy(s->bytes + s->n, p, n);
	s->n += n;
}

static void snap_region(Snap *s, const Region *r)
{
	if (r)
		put(s, r, sizeof *r);
}

static void snap_stmts(Snap *s, Stmt **body, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		put(s, body[i], sizeof *body[i]);
		snap_region(s, body[i]->dst);
		snap_region(s, body[i]->src);
		snap_region(s, body[i]->mma_b);
		snap_stmts(s, body[i]->body, body[i]->nbody);
	}
}

static Snap snap_module(const Module *m)
{
	Snap s = {0};
	for (size_t i = 0; i < m->nkernels; i++) {
		const Kernel *k = m->kernels[i];
		put(&s, k, sizeof *k);
		for (size_t b = 0; b < k->nbufs; b++)
			put(&s, k->bufs[b], sizeof *k->bufs[b]);
		if (k->nmbars)
			put(&s, k->mbars, sizeof *k->mbars * k->nmbars);
		snap_stmts(&s, k->body, k->nbody);
	}
	return s;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *s = malloc((size_t)n + 1);
	if (fread(s, 1, (size_t)n, f) != (size_t)n)
		n = 0;
	s[n] = 0;
	fclose(f);
	return s;
}

/* the driver's kernel passes in its order (src/api/driver.c), the tree
 * snapshotted after "statements", then emit; the snapshot's equality */
static bool tree_unchanged(Ctx *cx, Module *m)
{
	int64_t shared = 0;
	CHECK(check_module_header(cx, m), "header");
	for (size_t i = 0; i < m->nkernels; i++) {
		Kernel *k = m->kernels[i];
		CHECK(check_kernel(cx, m, i, &shared) && allocate_kernel(cx, m, k, shared) && check_kernel_stmts(cx, m, k),
		      "kernel %s checks", k->name);
	}
	Snap before = snap_module(m);
	for (size_t i = 0; i < m->nkernels; i++) {
		Kernel *k = m->kernels[i];
		resolve_auto_swizzle(cx, m, k);
		select_kernel(cx, m, k);
		check_role_phases(cx, m, k);
		if (!k->has_roles)
			check_races(cx, m, k);
	}
	Str ptx = {0};
	CHECK(emit_checked_module(cx, m, &ptx), "emits");
	str_free(&ptx);
	diag_print(&cx->diags, stderr);
	CHECK(cx->diags.errors == 0, "no errors");
	Snap after = snap_module(m);
	bool same = before.n == after.n && !memcmp(before.bytes, after.bytes, before.n);
	free(before.bytes);
	free(after.bytes);
	return same;
}

/* the first statement of kind kind in a body, depth first */
static const Stmt *find(Stmt **body, size_t n, StmtKind kind)
{
	for (size_t i = 0; i < n; i++) {
		if (body[i]->kind == kind)
			return body[i];
		const Stmt *s = find(body[i]->body, body[i]->nbody, kind);
		if (s)
			return s;
	}
	return NULL;
}

static void program(const char *path, bool deferred_tx)
{
	char *src = slurp(path);
	CHECK(src != NULL, "reads %s", path);
	if (!src)
		return;
	Ctx cx = {.arena = arena_new()};
	cx.diags.file = path;
	cx.diags.src = src;
	cx.diags.len = strlen(src);
	Module *m = parse_module(&cx, path, src, strlen(src));
	CHECK(m && !cx.diags.errors, "%s parses", path);
	if (m && !cx.diags.errors) {
		CHECK(tree_unchanged(&cx, m), "%s: the passes after 'statements' leave the syntax tree as it was", path);
		const Kernel *k = m->kernels[0];
		const Stmt *tx = find(k->body, k->nbody, ST_MBAR_EXPECT_TX);
		int64_t bytes = 0;
		CHECK(!deferred_tx || (tx && !tx->has_value && expect_tx_bytes(&cx, tx, &bytes) && bytes > 0),
		      "%s: the async pass's bytes of the first expect_tx are in its side table (%lld)", path,
		      (long long)bytes);
		for (size_t b = 0; b < k->nbufs; b++)
			if (k->bufs[b]->sw_auto)
				CHECK(swizzle_choice(&cx, k->bufs[b]) && swizzle_choice(&cx, k->bufs[b])->ncand == 4,
				      "%s: swizzle auto's record of '%s'", path, k->bufs[b]->name);
	}
	arena_free(cx.arena);
	free(src);
}

/* a func's ABI: pointers, shared addresses, args, the local registers in;
 * the same bytes out; each declaration in the emitted .func in that order */
static void func_abi(void)
{
	static const char src[] = "target sm_80\nfunc f\nthreads 32\nparam A f32 [32, 4]\nshared S f32 [32, 4]\n"
	                          "local R f32 [32, 4] layout S[(32, 4) : (1@laneid, 1)]\narg i 4\narg j 2\n"
	                          "warp copy R, A\nwarp copy S, R\n";
	Ctx cx = {.arena = arena_new()};
	Module *m = parse_module(&cx, "func.tile", src, strlen(src));
	Str ptx = {0};
	CHECK(m && !cx.diags.errors && emit_module(&cx, m, NULL, &ptx), "the func emits");
	diag_print(&cx.diags, stderr);
	if (m && ptx.s) {
		KernelAbi abi = kernel_abi(cx.arena, m->kernels[0]);
		static const char *const want[] = {".param .u64 f$param_0", ".param .u32 f$shared_S", ".param .u32 f$arg_i",
		                                   ".param .u32 f$arg_j", ".param .align 16 .b8 f$in[16]"};
		static const AbiKind kind[] = {ABI_POINTER, ABI_SHARED, ABI_ARG, ABI_ARG, ABI_LOCAL_IN};
		CHECK(abi.is_func && abi.nparams == 5 && abi.nshared == 1 && abi.nargs == 2 && abi.local_bytes == 16,
		      "the func's ABI counts (%d params)", abi.nparams);
		const char *at = strstr(ptx.s, ".visible .func (.param .align 16 .b8 f$ret[16]) f(");
		CHECK(at && abi.ret_decl && !strcmp(abi.ret_decl, ".param .align 16 .b8 f$ret[16]"), "the return param");
		for (int i = 0; i < 5 && i < abi.nparams; i++) {
			CHECK(abi.params[i].kind == kind[i] && !strcmp(abi.params[i].decl, want[i]), "param %d: %s", i,
			      abi.params[i].decl);
			const char *next = at ? strstr(at, want[i]) : NULL;
			CHECK(next != NULL, "the .func declares %s after the params before it", want[i]);
			at = next;
		}
		CHECK(strstr(ptx.s, "ld.param.u32 %r") && strstr(ptx.s, "[f$shared_S]") && strstr(ptx.s, "[f$arg_j]") &&
		      strstr(ptx.s, "[f$in+12]") && strstr(ptx.s, "[f$ret+12]"),
		      "the body loads the params by the ABI's names");
	}
	str_free(&ptx);
	arena_free(cx.arena);
}

int main(void)
{
	func_abi();
	/* swizzle auto over a TMA load (its tensor map's swizzle), an expect_tx
	 * without bytes (the async simulation) */
	program("tests/explain/auto_swizzle.tile", true);
	/* an expect_tx without bytes in a kernel with roles (the roles' proof) */
	program("examples/ws_pipeline.tile", true);
	/* cluster multicast: the bytes per CTA of the cluster */
	program("tests/gpu/tma_multicast_loop.tile", true);
	/* roles with constant loops: the roles' proof has the threads track
	 * every barrier's parity at run time (Mbar.dyn_phase, until issue 24) */
	program("tests/gpu/roles_thread_arrive.tile", false);
	UNIT_END();
}
