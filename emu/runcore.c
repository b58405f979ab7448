/* The core ptxemu and tilepx-run share (emu/runcore.h). */
#include "runcore.h"
#include "ptxemu_half.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

char *rc_slurp(const char *path, size_t *len)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin; /* '-': standard input */
	if (!f)
		return NULL;
	size_t cap = 1 << 16, n = 0;
	char *b = malloc(cap);
	for (size_t got; b && (got = fread(b + n, 1, cap - n - 1, f)) > 0;) {
		n += got;
		if (n + 1 == cap) {
			char *nb = realloc(b, cap *= 2);
			if (!nb)
				free(b);
			b = nb;
		}
	}
	if (f != stdin)
		fclose(f);
	if (b) {
		b[n] = 0;
		*len = n;
	}
	return b;
}

/* scalar sc's value among "NAME=V" strings: an integer, or a float's bits */
static bool set_one(const Scalar *sc, const char *const *sets, int n, int64_t *v, bool *bad)
{
	if (dtype_is_float_scalar(sc->dt))
		return kernel_set_float(sets, n, sc->name, sc->dt, v, bad);
	return kernel_set_value(sets, n, sc->name, v, bad);
}

bool rc_bind(Kernel *k, char **sets, int nsets, const char *src, char *why, size_t n)
{
	if (!k->nscalars) { /* a colmajor param of constant extents still gets its real layout and storage */
		for (size_t i = 0; i < k->nbufs; i++)
			if (k->bufs[i]->dynamic)
				return kernel_bind(k, NULL, why, n);
		return true;
	}
	/* the program's "# set: NAME=V ..." line, of any length */
	const char *hl = src ? strstr(src, "\n# set:") : NULL;
	size_t hlen = hl ? strcspn(hl + 7, "\n") : 0;
	char *line = hl ? malloc(hlen + 1) : NULL;
	if (line) {
		memcpy(line, hl + 7, hlen);
		line[hlen] = 0;
	}
	char **own = line ? malloc(sizeof(char *) * (strlen(line) / 2 + 1)) : NULL;
	int nown = 0;
	for (char *tok = own ? strtok(line, " \t\r") : NULL; tok; tok = strtok(NULL, " \t\r"))
		own[nown++] = tok;
	int64_t *vals = calloc(k->nscalars, sizeof *vals); /* lives as long as the run (k->bound_vals) */
	bool ok = vals && (!hl || own);
	if (ok && !kernel_sets_check((const char *const *)own, nown, why, n)) {
		char msg[300];
		snprintf(msg, sizeof msg, "the program's '# set:' line: %s", why);
		snprintf(why, n, "%s", msg);
		ok = false;
	}
	for (size_t i = 0; i < k->nscalars && ok; i++) {
		bool bad = false;
		const char *nm = k->scalars[i].name;
		if (!set_one(&k->scalars[i], (const char *const *)sets, nsets, &vals[i], &bad) &&
		    !set_one(&k->scalars[i], (const char *const *)own, nown, &vals[i], &bad)) {
			snprintf(why, n, "scalar param '%s' has no value (pass --set %s=N)", nm, nm);
			ok = false;
		} else if (bad) {
			snprintf(why, n, "the value of '%s' is not a %s", nm,
			         dtype_is_float_scalar(k->scalars[i].dt) ? "float" : "decimal integer");
			ok = false;
		}
	}
	free(own);
	free(line);
	if (!ok) {
		free(vals);
		return false;
	}
	if (!kernel_bind(k, vals, why, n)) {
		free(vals);
		return false;
	}
	return true;
}

void rc_warn_unused_sets(const Module *m, char **sets, int nsets, const char *tool, const char *path)
{
	for (int i = 0; i < nsets; i++) {
		size_t nl = strcspn(sets[i], "=");
		bool used = false;
		for (size_t ki = 0; ki < m->nkernels && !used; ki++)
			for (size_t j = 0; j < m->kernels[ki]->nscalars && !used; j++)
				used = strlen(m->kernels[ki]->scalars[j].name) == nl && !strncmp(m->kernels[ki]->scalars[j].name, sets[i], nl);
		if (!used)
			fprintf(stderr, "%s: warning: --set %s: %s has no scalar param '%.*s'\n", tool, sets[i], path, (int)nl, sets[i]);
	}
}

bool rc_params_init(const Kernel *k, RunParams *rp, char *why, size_t n)
{
	int np = k->nparams;
	rp->n = np;
	rp->buf = calloc((size_t)np + 1, sizeof *rp->buf);
	rp->bytes = calloc((size_t)np + 1, sizeof *rp->bytes);
	rp->init = calloc((size_t)np + 1, sizeof *rp->init);
	rp->want = calloc((size_t)np + 1, sizeof *rp->want);
	rp->tol = calloc((size_t)np + 1, sizeof *rp->tol);
	rp->got = calloc((size_t)np + 1, sizeof *rp->got);
	for (size_t i = 0; i < k->nbufs; i++)
		if (k->bufs[i]->mem == MEM_GLOBAL)
			rp->buf[k->bufs[i]->param_index] = k->bufs[i];
	for (int i = 0; i < np; i++) {
		rp->bytes[i] = (size_t)(rp->buf[i]->storage * dtype_bytes(rp->buf[i]->dt));
		rp->init[i] = malloc(rp->bytes[i] + 1);
		rp->want[i] = malloc(rp->bytes[i] + 1);
		rp->got[i] = malloc(rp->bytes[i] + 1);
		if (!rp->init[i] || !rp->want[i] || !rp->got[i]) { /* a size the facts allow may exceed the host */
			snprintf(why, n, "param '%s' needs %zu bytes (three copies: input, expected, result); cannot allocate them",
			         rp->buf[i]->name, rp->bytes[i]);
			rp->n = i + 1;
			rc_params_free(rp);
			return false;
		}
		ref_fill_param(rp->buf[i], rp->init[i], i);
		memcpy(rp->want[i], rp->init[i], rp->bytes[i]);
		memcpy(rp->got[i], rp->init[i], rp->bytes[i]);
	}
	return true;
}

static unsigned char guard_byte(int param, int side, int i) { return (unsigned char)(0xA5 ^ (param * 7 + side * 3 + i * 13)); }

void rc_guard_fill(unsigned char *g, int param, int side)
{
	for (int i = 0; i < RC_GUARD; i++)
		g[i] = guard_byte(param, side, i);
}

long rc_guard_check(const unsigned char *g, int param, int side)
{
	for (int i = 0; i < RC_GUARD; i++)
		if (g[i] != guard_byte(param, side, i))
			return i;
	return -1;
}

bool rc_guard_check_at(const unsigned char *g, int param, int side, int i) { return g[i] != guard_byte(param, side, i); }

void rc_params_free(RunParams *rp)
{
	for (int i = 0; i < rp->n; i++) {
		free(rp->init[i]);
		free(rp->want[i]);
		free(rp->got[i]);
		if (rp->tol)
			free(rp->tol[i]);
	}
	free(rp->buf);
	free(rp->bytes);
	free(rp->init);
	free(rp->want);
	free(rp->got);
	free(rp->tol);
	memset(rp, 0, sizeof *rp);
}

typedef struct GemmPart {
	const float *a, *b;
	float *c;
	int64_t r0, r1, N, K;
} GemmPart;

/* rows [r0, r1) of C, each element summed in k order */
static void *gemm_rows(void *arg)
{
	const GemmPart *g = arg;
	for (int64_t i = g->r0; i < g->r1; i++)
		for (int64_t k = 0; k < g->K; k++) {
			float x = g->a[i * g->K + k];
			float *cr = g->c + i * g->N;
			const float *br = g->b + k * g->N;
			for (int64_t j = 0; j < g->N; j++)
				cr[j] += x * br[j];
		}
	return NULL;
}

/* C = A * B on the host, threaded by rows, in k order per element; buf is
 * "C=A*B", cut into its names here */
static const char *dense_gemm_of(RunParams *rp, char *buf, double *flops)
{
	char *eq = strchr(buf, '='), *st = eq ? strchr(eq, '*') : NULL;
	if (!st)
		return "--gemm takes C=A*B";
	*eq = *st = 0;
	const char *nm[3] = {buf, eq + 1, st + 1};
	int ix[3] = {-1, -1, -1};
	for (int i = 0; i < rp->n; i++)
		for (int j = 0; j < 3; j++)
			if (!strcmp(rp->buf[i]->name, nm[j]))
				ix[j] = i;
	if (ix[0] < 0 || ix[1] < 0 || ix[2] < 0)
		return "--gemm names params the kernel does not have";
	const Buffer *C = rp->buf[ix[0]], *A = rp->buf[ix[1]], *B = rp->buf[ix[2]];
	if (C->ndim != 2 || A->ndim != 2 || B->ndim != 2 || C->dt != DT_F32 || A->dt != B->dt ||
	    (A->dt != DT_F16 && A->dt != DT_BF16) || A->shape[0] != C->shape[0] || B->shape[1] != C->shape[1] ||
	    A->shape[1] != B->shape[0] || C->has_layout || A->has_layout || B->has_layout)
		return "--gemm needs row-major params C f32 [M, N], A [M, K], B [K, N] (f16 or bf16)";
	int64_t M = C->shape[0], N = C->shape[1], K = A->shape[1];
	bool bf = A->dt == DT_BF16;
	float *a = malloc(sizeof(float) * (size_t)(M * K)), *b = malloc(sizeof(float) * (size_t)(K * N)),
	      *c = calloc((size_t)(M * N), sizeof(float));
	if (!a || !b || !c) {
		free(a);
		free(b);
		free(c);
		return "out of memory for the host GEMM";
	}
	for (int64_t i = 0; i < M * K; i++) {
		uint16_t h;
		memcpy(&h, rp->want[ix[1]] + 2 * i, 2);
		a[i] = emu_half_to_f32(h, bf);
	}
	for (int64_t i = 0; i < K * N; i++) {
		uint16_t h;
		memcpy(&h, rp->want[ix[2]] + 2 * i, 2);
		b[i] = emu_half_to_f32(h, bf);
	}
	enum { NT = 32 };
	pthread_t th[NT];
	GemmPart part[NT];
	int started = 0;
	for (int t = 0; t < NT && M >= NT; t++) {
		part[t] = (GemmPart){a, b, c, M * t / NT, M * (t + 1) / NT, N, K};
		if (pthread_create(&th[t], NULL, gemm_rows, &part[t]) != 0)
			break;
		started = t + 1;
	}
	for (int t = 0; t < started; t++)
		pthread_join(th[t], NULL);
	GemmPart rest = {a, b, c, M * started / NT, M, N, K}; /* what no thread took */
	gemm_rows(&rest);
	memcpy(rp->want[ix[0]], c, sizeof(float) * (size_t)(M * N));
	free(a);
	free(b);
	free(c);
	if (flops)
		*flops = 2.0 * (double)M * (double)N * (double)K;
	return NULL;
}

static const char *dense_gemm(RunParams *rp, const char *spec, double *flops)
{
	char *buf = malloc(strlen(spec) + 1); /* param names of any length */
	if (!buf)
		return "out of memory for the host GEMM";
	strcpy(buf, spec);
	const char *why = dense_gemm_of(rp, buf, flops);
	free(buf);
	return why;
}

const char *rc_expect(Ctx *cx, const Kernel *k, const char *gemm, RunParams *rp, int64_t *moved, double *flops)
{
	if (gemm && gemm[0])
		return dense_gemm(rp, gemm, flops);
	int before = cx->diags.errors;
	if (rp->tol ? ref_run_kernel_tol(cx, k, rp->want, rp->tol, moved) : ref_run_kernel(cx, k, rp->want, moved))
		return NULL;
	if (cx->diags.errors > before) /* the reference's located error: a hang in the program's meaning */
		diag_print(&cx->diags, stderr);
	return "the CPU reference could not run this program";
}

static uint64_t element(const unsigned char *p, int es)
{
	uint64_t v = 0;
	memcpy(&v, p, (size_t)es);
	return v;
}

/* a float element's value (f32, f16, bf16, e4m3, e5m2) */
static double float_value(const unsigned char *p, DType dt)
{
	if (dt == DT_F32) {
		float f;
		memcpy(&f, p, 4);
		return f;
	}
	if (dt == DT_F16 || dt == DT_BF16) {
		uint16_t h;
		memcpy(&h, p, 2);
		return emu_half_to_f32(h, dt == DT_BF16);
	}
	int mb = dt == DT_E4M3 ? 3 : 2, bias = dt == DT_E4M3 ? 7 : 15, e = (p[0] >> mb) & (dt == DT_E4M3 ? 15 : 31);
	int m = p[0] & ((1 << mb) - 1);
	if (dt == DT_E4M3 ? (p[0] & 0x7f) == 0x7f : e == 31)
		return m || dt == DT_E4M3 ? 0.0 / 0.0 : (p[0] & 0x80 ? -1.0 : 1.0) / 0.0;
	double v = e ? (double)((1 << mb) | m) : (double)m; /* times 2^(max(e, 1) - bias - mb) */
	for (int i = 0; i < (e ? e : 1) - bias - mb; i++)
		v *= 2;
	for (int i = 0; i > (e ? e : 1) - bias - mb; i--)
		v /= 2;
	return p[0] & 0x80 ? -v : v;
}

/* got within want's bound: both NaN, or at most the bound apart */
static bool within(const unsigned char *want, const unsigned char *got, DType dt, float bound)
{
	if (bound <= 0 || !(dt == DT_F32 || dt == DT_F16 || dt == DT_BF16 || dt == DT_E4M3 || dt == DT_E5M2))
		return false;
	double w = float_value(want, dt), g = float_value(got, dt);
	if (w != w || g != g)
		return w != w && g != g;
	return w == g || (g - w <= bound && w - g <= bound);
}

int64_t rc_compare(const RunParams *rp, int show)
{
	int64_t bad = 0;
	for (int i = 0; i < rp->n; i++) {
		const Buffer *b = rp->buf[i];
		int es = dtype_bytes(b->dt);
		for (int64_t e = 0; e < b->storage; e++) {
			if (!memcmp(rp->want[i] + e * es, rp->got[i] + e * es, (size_t)es))
				continue;
			if (rp->tol && rp->tol[i] && within(rp->want[i] + e * es, rp->got[i] + e * es, b->dt, rp->tol[i][e]))
				continue;
			if (bad++ < show) {
				int64_t c[MAX_DIMS];
				printf("  %s element %lld", b->name, (long long)e);
				if (ref_coord_of(b, e, c)) {
					printf(" [");
					for (int d = 0; d < b->ndim; d++)
						printf("%s%lld", d ? ", " : "", (long long)c[d]);
					printf("]");
				}
				printf(": expected 0x%0*llx, got 0x%0*llx\n", es * 2,
				       (unsigned long long)element(rp->want[i] + e * es, es), es * 2,
				       (unsigned long long)element(rp->got[i] + e * es, es));
			}
		}
	}
	return bad;
}

/* "a  b\tc" -> "a b c": declarations compare with whitespace collapsed */
static void squeeze(const char *s, size_t len, char *out, size_t n)
{
	size_t o = 0;
	bool space = true; /* no leading blank */
	for (size_t i = 0; i < len && o + 1 < n; i++) {
		bool sp = s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r';
		if (sp && !space)
			out[o++] = ' ';
		else if (!sp)
			out[o++] = s[i];
		space = sp;
	}
	while (o > 0 && out[o - 1] == ' ')
		o--;
	out[o] = 0;
}

/* the directive's first number in the entry's header [h, e), or 0 when absent */
static long long directive(const char *h, const char *e, const char *name, long long *second)
{
	size_t n = strlen(name);
	for (const char *d = h; d && d < e; d = strstr(d + 1, name))
		if (!strncmp(d, name, n) && (d[n] == ' ' || d[n] == '\t')) {
			long long a = 0, b = 0;
			sscanf(d + n, " %lld , %lld", &a, &b);
			if (second)
				*second = b;
			return a;
		}
	if (second)
		*second = 0;
	return 0;
}

int rc_abi_check(const KernelAbi *abi, const char *ptx, char *why, size_t n)
{
	size_t kl = strlen(abi->kernel);
	const char *h = NULL;
	for (const char *at = strstr(ptx, ".entry "); at && !h; at = strstr(at + 1, ".entry ")) {
		const char *nm = at + 7;
		while (*nm == ' ' || *nm == '\t')
			nm++;
		if (!strncmp(nm, abi->kernel, kl) && nm[kl] == '(' &&
		    (at - ptx >= 9 && !strncmp(at - 9, ".visible ", 9)))
			h = nm + kl + 1;
	}
	if (!h)
		return -1;
	const char *close = strchr(h, ')'), *body = close ? strchr(close, '{') : NULL;
	if (!body) {
		snprintf(why, n, "the entry's header does not end");
		return 0;
	}
	int i = 0;
	for (const char *d = h; d < close; i++) {
		const char *c = memchr(d, ',', (size_t)(close - d));
		const char *e = c ? c : close;
		char *got = malloc((size_t)(e - d) + 1); /* names of any length */
		if (!got) {
			snprintf(why, n, "out of memory");
			return 0;
		}
		squeeze(d, (size_t)(e - d), got, (size_t)(e - d) + 1);
		if (!got[0] && !c && i == 0) {
			free(got);
			break; /* no params */
		}
		if (i >= abi->nparams || strcmp(got, abi->params[i].decl)) {
			snprintf(why, n, "the entry's param %d is '%s', its ABI says '%s'", i, got,
			         i < abi->nparams ? abi->params[i].decl : "(none: it has fewer params)");
			free(got);
			return 0;
		}
		free(got);
		d = c ? c + 1 : close;
	}
	if (i < abi->nparams) {
		snprintf(why, n, "the entry has %d params, its ABI %d (the next: '%s')", i, abi->nparams, abi->params[i].decl);
		return 0;
	}
	long long y = 0, threads = directive(close, body, ".reqntid", NULL);
	long long maxnreg = directive(close, body, ".maxnreg", NULL), cx = directive(close, body, ".reqnctapercluster", &y);
	if (threads != abi->threads || maxnreg != abi->maxnreg || cx != abi->cluster_x || y != abi->cluster_y) {
		snprintf(why, n, "the entry's .reqntid %lld, .maxnreg %lld, .reqnctapercluster %lld, %lld differ from its "
		         "ABI's %lld, %lld, %lld, %lld (0: none)", threads, maxnreg, cx, y, (long long)abi->threads,
		         (long long)abi->maxnreg, (long long)abi->cluster_x, (long long)abi->cluster_y);
		return 0;
	}
	return 1;
}

/* every kernel of a compiled program through the runner's hooks */
static int run_kernels(const RcRunner *r, RcFile *f)
{
	int status = 0;
	for (size_t ki = 0; ki < f->mod->nkernels; ki++) {
		Kernel *k = f->mod->kernels[ki];
		if (k->is_func)
			continue;
		if (r->kernel_admit && !r->kernel_admit(r->ctx, f, k, &status))
			continue;
		char why[256];
		if (!rc_bind(k, r->sets, r->nsets, f->src, why, sizeof why)) {
			printf("FAIL %s: %s\n", k->name, why); /* refused: nothing runs */
			status = 1;
			continue;
		}
		KernelAbi abi = kernel_abi(f->cx.arena, k);
		status |= r->kernel_run(r->ctx, f, k, &abi) != 0;
		fflush(stdout); /* each verdict out before the next kernel runs (a crash keeps the earlier ones) */
		free((void *)k->bound_vals);
		k->bound_vals = NULL;
	}
	return status;
}

/* f (its source read) compiled; false when it does not compile */
static bool rc_compile(const RcRunner *r, RcFile *f, const char *path)
{
	f->cx.arena = arena_new();
	f->cx.diags.file = path;
	f->cx.diags.src = f->src;
	f->cx.diags.len = f->len;
	f->cx.lineinfo = r->lineinfo;
	f->mod = parse_module(&f->cx, path, f->src, f->len);
	if (f->cx.diags.errors)
		return false;
	rc_warn_unused_sets(f->mod, r->sets, r->nsets, r->tool, path);
	return emit_module(&f->cx, f->mod, NULL, &f->ptx);
}

static void rc_file_free(RcFile *f)
{
	str_free(&f->ptx);
	arena_free(f->cx.arena);
	free(f->src);
}

void rc_cache_free(RcCache *c)
{
	if (c->path)
		rc_file_free(&c->f);
	free(c->path);
	c->path = NULL;
}

static char *rc_strdup(const char *s)
{
	size_t n = strlen(s) + 1;
	char *d = malloc(n);
	return d ? memcpy(d, s, n) : NULL;
}

/* the cached compile of path, when it is this file's (same bytes, same options) */
static bool rc_cached(const RcRunner *r, const RcFile *f, const char *path)
{
	const RcCache *c = r->cache;
	return c && c->path && !strcmp(c->path, path) && c->lineinfo == r->lineinfo && c->f.len == f->len &&
	       !memcmp(c->f.src, f->src, f->len);
}

int rc_run_file(const RcRunner *r, const char *path)
{
	RcFile f = {.path = path};
	f.src = rc_slurp(path, &f.len);
	if (!f.src) {
		fprintf(stderr, "%s: cannot read %s\n", r->tool, path);
		return 1;
	}
	bool compiled;
	if (rc_cached(r, &f, path)) {
		free(f.src);
		f = r->cache->f;
		f.path = path;
		rc_warn_unused_sets(f.mod, r->sets, r->nsets, r->tool, path);
		compiled = true;
	} else {
		if (r->cache)
			rc_cache_free(r->cache);
		compiled = rc_compile(r, &f, path);
	}
	int status = 0;
	size_t ndiags = f.cx.diags.n;
	if (!compiled) {
		if (r->print_diags)
			diag_print(&f.cx.diags, stderr);
		printf("FAIL %s: does not compile\n", path);
		status = 1;
	} else if (r->file_begin(r->ctx, &f, &status)) {
		status |= run_kernels(r, &f);
		if (r->file_end)
			r->file_end(r->ctx, &f);
	}
	RcCache *c = r->cache; /* kept for the next invocation unless the run reported something */
	bool keep = c && compiled && f.cx.diags.n == ndiags && (c->path || (c->path = rc_strdup(path)));
	if (keep) {
		c->lineinfo = r->lineinfo;
		c->f = f;
		return status;
	}
	if (c) { /* f is the cache's when it has a path */
		free(c->path);
		c->path = NULL;
	}
	rc_file_free(&f);
	return status;
}
