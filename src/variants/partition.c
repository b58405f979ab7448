/* Partitions shared by the copy variants (see partition.h). */
#include "partition.h"

#include <string.h>

/* refine two views into pairs (a's iter, b's iter) with equal extents */
static bool make_pairs(const View *a, const View *b, Pair *out, int *n)
{
	Layout A = a->L, B = b->L, ra, rb;
	A.sw.on = B.sw.on = false;
	if (!lay_refine_pair(&A, &B, &ra, &rb))
		return false;
	for (int i = 0; i < ra.n; i++)
		out[i] = (Pair){ra.it[i].ext, ra.it[i].stride, rb.it[i].stride, ra.it[i].axis};
	*n = ra.n;
	return true;
}

/* stable sort: key descending */
static void sort_pairs(Pair *p, int n, bool (*before)(const Pair *, const Pair *))
{
	for (int i = 1; i < n; i++) {
		Pair x = p[i];
		int j = i;
		while (j > 0 && before(&x, &p[j - 1])) {
			p[j] = p[j - 1];
			j--;
		}
		p[j] = x;
	}
}

static bool a_stride_desc(const Pair *x, const Pair *y) { return x->a > y->a; }

static bool threads_then_stride(const Pair *x, const Pair *y)
{
	bool tx = axis_is_thread(x->axis), ty = axis_is_thread(y->axis);
	if (tx != ty)
		return tx;
	return !tx && x->a > y->a;
}

/* fuse adjacent pairs contiguous on both sides (and on one axis) */
static int fuse_pairs(Pair *p, int n)
{
	int k = 0;
	for (int i = 0; i < n; i++) {
		if (k > 0) {
			Pair *q = &p[k - 1];
			if (q->axis == p[i].axis && p[i].ext * p[i].a == q->a && p[i].ext * p[i].b == q->b) {
				q->ext *= p[i].ext;
				q->a = p[i].a;
				q->b = p[i].b;
				continue;
			}
		}
		p[k++] = p[i];
	}
	return k;
}

/* take `need` elements off the tail of p[0..*n); contiguous: both sides must
 * chain from stride 1. Taken pairs go to out (most significant first). */
static bool carve_tail(Pair *p, int *n, int64_t need, bool contiguous, Pair *out, int *nout)
{
	Pair rev[MAX_ITERS];
	int nr = 0;
	int64_t expect = 1;
	while (need > 1) {
		if (*n == 0)
			return false;
		Pair *q = &p[*n - 1];
		if (contiguous && (q->a != expect || q->b != expect))
			return false;
		if (q->ext <= need && need % q->ext == 0) {
			rev[nr++] = *q;
			need /= q->ext;
			expect *= q->ext;
			(*n)--;
		} else if (q->ext > need && q->ext % need == 0) {
			rev[nr++] = (Pair){need, q->a, q->b, q->axis};
			q->ext /= need;
			q->a *= need;
			q->b *= need;
			need = 1;
		} else {
			return false;
		}
	}
	for (int i = 0; i < nr; i++)
		out[i] = rev[nr - 1 - i];
	*nout = nr;
	return true;
}

static bool affine_divisible(const Affine *a, int64_t v)
{
	if (a->c % v)
		return false;
	for (int i = 0; i < a->n; i++)
		if (a->t[i].k % v)
			return false;
	return true;
}

const char *gs_partition(const CopyOp *op, const View *g, const View *s, const int *vec_bits, int ncand, Part *out)
{
	Pair base[MAX_ITERS];
	int nb;
	if (!make_pairs(g, s, base, &nb))
		return "the global and shared layouts split the copy's index space incompatibly";
	sort_pairs(base, nb, a_stride_desc);
	nb = fuse_pairs(base, nb);
	int bits = dtype_bytes(op->dt) * 8;
	int64_t chunk = s->L.sw.on ? ((int64_t)1 << s->L.sw.p) : INT64_MAX;
	int64_t T = op->scope_threads;
	for (int c = 0; c < ncand; c++) {
		if (vec_bits[c] % bits)
			continue;
		int vec = vec_bits[c] / bits;
		if (vec > chunk || op->elems % (T * vec))
			continue;
		Pair rest[MAX_ITERS], vp[MAX_ITERS];
		int nr = nb, nv;
		memcpy(rest, base, sizeof(Pair) * (size_t)nb);
		Part p = {0};
		p.vec = vec;
		if (!carve_tail(rest, &nr, vec, true, vp, &nv))
			continue;
		if (!carve_tail(rest, &nr, T, false, p.thr, &p.nthr))
			continue;
		bool ok = affine_divisible(&g->off[AX_M], vec) && affine_divisible(&s->off[AX_M], vec);
		for (int i = 0; i < nr && ok; i++)
			ok = rest[i].a % vec == 0 && rest[i].b % vec == 0;
		for (int i = 0; i < p.nthr && ok; i++)
			ok = p.thr[i].a % vec == 0 && p.thr[i].b % vec == 0;
		if (!ok)
			continue;
		memcpy(p.out, rest, sizeof(Pair) * (size_t)nr);
		p.nout = nr;
		p.outer = op->elems / (T * vec);
		p.thr_size = T;
		*out = p;
		return NULL;
	}
	return arena_printf(op->cx->arena,
	                    "no vector width in {%d%s} bits keeps every stride and offset aligned while splitting %lld "
	                    "elements over %lld threads",
	                    vec_bits[0], ncand > 1 ? ", ..." : "", (long long)op->elems, (long long)T);
}

bool reg_pairs(const View *r, const View *s, Pair *out, int *n)
{
	if (!make_pairs(r, s, out, n))
		return false;
	sort_pairs(out, *n, threads_then_stride);
	*n = fuse_pairs(out, *n);
	return true;
}

bool group_pairs(const Pair *p, int n, const int64_t *shape, int ns, Pair *out, int *nout, int *seps)
{
	Pair q[MAX_ITERS];
	memcpy(q, p, sizeof(Pair) * (size_t)n);
	int qi = 0, k = 0;
	for (int d = 0; d < ns; d++) {
		seps[d] = k;
		int64_t need = shape[d];
		while (need > 1) {
			if (qi == n || k == MAX_ITERS)
				return false;
			Pair it = q[qi];
			if (it.ext <= need && need % it.ext == 0) {
				out[k++] = it;
				need /= it.ext;
				qi++;
			} else if (it.ext > need && it.ext % need == 0) {
				int64_t lo = it.ext / need;
				out[k++] = (Pair){need, it.a * lo, it.b * lo, it.axis};
				q[qi].ext = lo;
				need = 1;
			} else {
				return false;
			}
		}
	}
	for (; qi < n; qi++)
		if (q[qi].ext != 1)
			return false;
	seps[ns] = k;
	*nout = k;
	return true;
}

const char *reg_partition(const CopyOp *op, const View *r, const View *s, Part *out)
{
	Pair base[MAX_ITERS];
	int nb;
	if (!reg_pairs(r, s, base, &nb))
		return "the register and memory layouts split the copy's index space incompatibly";
	Part p = {0};
	Pair atoms[MAX_ITERS];
	int na = 0;
	for (int i = 0; i < nb; i++) {
		if (axis_is_thread(base[i].axis))
			p.thr[p.nthr++] = base[i];
		else
			atoms[na++] = base[i];
	}
	/* threads: a dense mixed radix of the owner's thread index */
	Pair sorted[MAX_ITERS];
	memcpy(sorted, p.thr, sizeof(Pair) * (size_t)p.nthr);
	for (int i = 1; i < p.nthr; i++)
		for (int j = i; j > 0 && sorted[j].a < sorted[j - 1].a; j--) {
			Pair t = sorted[j];
			sorted[j] = sorted[j - 1];
			sorted[j - 1] = t;
		}
	int64_t expect = 1;
	for (int i = 0; i < p.nthr; i++) {
		if (sorted[i].a != expect)
			return "the register layout's thread strides do not enumerate threads 0, 1, 2, ... densely";
		expect *= sorted[i].ext;
	}
	p.thr_size = expect;
	int bits = dtype_bytes(op->dt) * 8;
	int64_t chunk = s->L.sw.on ? ((int64_t)1 << s->L.sw.p) : INT64_MAX;
	static const int cands[] = {128, 64, 32, 16, 8};
	int64_t per_thread = 1;
	for (int i = 0; i < na; i++)
		per_thread *= atoms[i].ext;
	for (int c = 0; c <= 5; c++) {
		int vec = c < 5 ? cands[c] / bits : 1;
		if ((c < 5 && cands[c] % bits) || vec < 1 || vec > chunk || per_thread % vec)
			continue;
		Pair rest[MAX_ITERS], vp[MAX_ITERS];
		int nr = na, nv;
		memcpy(rest, atoms, sizeof(Pair) * (size_t)na);
		if (!carve_tail(rest, &nr, vec, true, vp, &nv))
			continue;
		/* registers: offsets are static; memory: offsets and strides aligned */
		bool ok = affine_divisible(&r->off[AX_M], vec) && affine_divisible(&s->off[AX_M], vec);
		for (int i = 0; i < nr && ok; i++)
			ok = rest[i].a % vec == 0 && rest[i].b % vec == 0;
		for (int i = 0; i < p.nthr && ok; i++)
			ok = p.thr[i].b % vec == 0;
		if (!ok)
			continue;
		p.vec = vec;
		memcpy(p.out, rest, sizeof(Pair) * (size_t)nr);
		p.nout = nr;
		p.outer = per_thread / vec;
		*out = p;
		return NULL;
	}
	return "no vector width keeps the per-thread accesses aligned";
}

Reg emit_thread_offset(Emit *e, const Part *p, const View *v, Reg thread, bool side_a)
{
	Builder *b = emit_builder(e);
	Reg acc = emit_affine(e, &v->off[AX_M]);
	for (int i = 0; i < p->nthr; i++) {
		const Pair *q = &p->thr[i];
		/* digit of the thread index: for gs splits the radix is positional
		 * (later digits are less significant); for reg it is the a-stride */
		int64_t div;
		if (axis_is_thread(q->axis)) {
			div = q->a;
		} else {
			div = 1;
			for (int j = i + 1; j < p->nthr; j++)
				div *= p->thr[j].ext;
		}
		int64_t stride = side_a ? q->a : q->b;
		if (axis_is_thread(q->axis) && side_a)
			continue; /* register side: thread strides address threads, not registers */
		if (stride == 0)
			continue;
		Reg d = emit_digit(e, thread, div, q->ext);
		Reg r = b_reg(b, RC_R);
		b_ins(b, FORM_MAD_LO_U32, b_name(b, r), b_name(b, d), b_imm(b, stride), b_name(b, acc), NULL);
		acc = r;
	}
	return acc;
}

static void loops(const CopyOp *op, Emit *e, const Part *p, int level, Reg ga, Reg gb, AccessFn access,
                  const void *ctx)
{
	if (level == p->nout) {
		access(op, e, ctx, ga, gb);
		return;
	}
	Builder *b = emit_builder(e);
	const Pair *q = &p->out[level];
	Loop l = emit_loop_begin(e, q->ext);
	Reg na = b_reg(b, RC_R), nb = b_reg(b, RC_R);
	b_ins(b, FORM_MAD_LO_U32, b_name(b, na), b_name(b, l.counter), b_imm(b, q->a), b_name(b, ga), NULL);
	b_ins(b, FORM_MAD_LO_U32, b_name(b, nb), b_name(b, l.counter), b_imm(b, q->b), b_name(b, gb), NULL);
	loops(op, e, p, level + 1, na, nb, access, ctx);
	emit_loop_end(e, &l);
}

void emit_partition_loops(const CopyOp *op, Emit *e, const Part *p, const View *a, const View *b, Reg thread,
                          AccessFn access, const void *ctx)
{
	Reg ta = emit_thread_offset(e, p, a, thread, true);
	Reg tb = emit_thread_offset(e, p, b, thread, false);
	loops(op, e, p, 0, ta, tb, access, ctx);
}
