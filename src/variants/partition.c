/* Partitions shared by the copy variants (see partition.h). */
#include "partition.h"

#include <string.h>

static Reg off_value(Emit *e, const Off *o);

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

static int64_t gcd64(int64_t a, int64_t b)
{
	while (b) {
		int64_t t = a % b;
		a = b;
		b = t;
	}
	return a;
}

/* take `need` thread digits from p[0..*n), tail first: from each pair the
 * largest factor g = gcd(extent, need) becomes a thread digit (its low part,
 * strides as is) and the high part (extent / g, strides * g) stays in place
 * as an outer digit. Any split of the index space into digits is a
 * bijection, so this only decides which elements a thread gets: where
 * carve_tail's whole-pair split exists it is the same split; otherwise it
 * still finds one whenever the extents' factors hold `need` (6 columns and
 * 32 threads: 2 from the columns, 16 from the rows). */
static bool carve_threads(Pair *p, int *n, int64_t need, Pair *out, int *nout)
{
	Pair rev[MAX_ITERS];
	int nr = 0;
	for (int i = *n - 1; i >= 0 && need > 1; i--) {
		int64_t g = gcd64(p[i].ext, need);
		if (g == 1 && p[i].ext != 1)
			continue;
		if (nr == MAX_ITERS)
			return false;
		rev[nr++] = (Pair){g, p[i].a, p[i].b, p[i].axis};
		need /= g;
		if (g == p[i].ext) {
			memmove(&p[i], &p[i + 1], sizeof(Pair) * (size_t)(*n - i - 1));
			(*n)--;
		} else {
			p[i].ext /= g;
			p[i].a *= g;
			p[i].b *= g;
		}
	}
	if (need > 1)
		return false;
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

/* the first width of vec_bits whose accesses split over T threads (every
 * stride and offset aligned); false when none does */
static bool gs_split(const CopyOp *op, const View *g, const View *s, const Pair *base, int nb, const int *vec_bits,
                     int ncand, int64_t T, Part *out)
{
	int bits = dtype_bytes(op->dt) * 8;
	int64_t chunk = s->L.sw.on ? ((int64_t)1 << s->L.sw.p) : INT64_MAX;
	for (int c = 0; c < ncand; c++) {
		if (vec_bits[c] % bits)
			continue;
		int vec = vec_bits[c] / bits;
		if (vec > chunk || op->elems % (T * vec) || (g->vec_cap && vec > g->vec_cap))
			continue;
		Pair rest[MAX_ITERS], vp[MAX_ITERS];
		int nr = nb, nv;
		memcpy(rest, base, sizeof(Pair) * (size_t)nb);
		Part p = {0};
		p.vec = vec;
		if (!carve_tail(rest, &nr, vec, true, vp, &nv))
			continue;
		if (!carve_threads(rest, &nr, T, p.thr, &p.nthr))
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
		return true;
	}
	return false;
}

const char *gs_partition_some(const CopyOp *op, const View *g, const View *s, const int *vec_bits, int ncand,
                              bool idle, Part *out)
{
	Pair base[MAX_ITERS];
	int nb;
	if (!make_pairs(g, s, base, &nb))
		return "the global and shared layouts split the copy's index space incompatibly";
	sort_pairs(base, nb, a_stride_desc);
	nb = fuse_pairs(base, nb);
	int64_t T = op->scope_threads;
	if (gs_split(op, g, s, base, nb, vec_bits, ncand, T, out))
		return NULL;
	/* fewer threads, the widest access first: 48 pieces of 4 bytes go to 24 of 32 threads */
	for (int c = 0; c < ncand && idle; c++)
		for (int64_t t = T - 1; t >= 1; t--)
			if (gs_split(op, g, s, base, nb, &vec_bits[c], 1, t, out))
				return NULL;
	if (g->vec_cap) /* a param with runtime extents: the facts decide the widths */
		return arena_printf(op->cx->arena,
		                    "no vector width in {%d%s} bits keeps every stride and offset aligned while splitting %lld "
		                    "elements over %lld threads; the facts about '%s' allow vectors of %lld element%s at the "
		                    "edge and rows aligned to %lld (declare '%%' facts on its extents and leading dimension, e.g. "
		                    "'assume K %% 8 == 0')",
		                    vec_bits[0], ncand > 1 ? ", ..." : "", (long long)op->elems, (long long)T,
		                    (g == &op->dst ? op->dbuf : op->sbuf)->name, (long long)g->vec_cap, g->vec_cap > 1 ? "s" : "",
		                    (long long)row_pow2(op->k, g == &op->dst ? op->dbuf : op->sbuf));
	return arena_printf(op->cx->arena,
	                    "no vector width in {%d%s} bits keeps every stride and offset aligned while splitting %lld "
	                    "elements over %lld threads%s",
	                    vec_bits[0], ncand > 1 ? ", ..." : "", (long long)op->elems, (long long)T,
	                    idle ? " or fewer" : "");
}

const char *gs_partition(const CopyOp *op, const View *g, const View *s, const int *vec_bits, int ncand, Part *out)
{
	return gs_partition_some(op, g, s, vec_bits, ncand, false, out);
}

/* the remainder r of a widened digit (accesses start.. of vec elements of
 * es bytes): pieces of powers of two, widest first, none of 2 or 3 bytes
 * (a wide access moves whole 32-bit registers) */
static void plan_tail(Part *p, int64_t start, int64_t r, int64_t es)
{
	p->ntail = 0;
	while (r > 0 && p->ntail < MAX_TAIL) {
		int64_t n = 1;
		while (n * 2 <= r)
			n *= 2;
		while (n > 1 && n * p->vec * es < 4)
			n /= 2;
		p->tail_n[p->ntail] = (int)n;
		p->tail_start[p->ntail++] = start;
		start += n;
		r -= n;
	}
}

static bool shared_strides_divisible(const Part *p, int64_t n)
{
	for (int i = 0; i < p->nout - 1; i++)
		if (p->out[i].b % n)
			return false;
	for (int i = 0; i < p->nthr; i++)
		if (p->thr[i].b % n)
			return false;
	return true;
}

/* a shared read of the widened digit's remainder may round up to one more
 * wide access (ptxas merges the pieces so, reading past them) when every
 * element read past the view is padding of the buffer, never written: the
 * buffer's layout is rows of rl contiguous elements, pitch (every other
 * stride a multiple of it) above rl, inside its storage; the view starts
 * rows (its offset and the other strides multiples of the pitch) and is as
 * wide as them; the rounded read ends inside the row's pitch */
static bool read_over_padding(const CopyOp *op, const View *s, const Part *p, int64_t ext, int64_t end)
{
	const Buffer *b = op->sbuf;
	const Layout *L = &b->layout;
	if (b->mem != MEM_SHARED || L->sw.on || s->L.sw.on)
		return false;
	int64_t rl = 0, pitch = INT64_MAX, last = 0;
	for (int i = 0; i < L->n; i++) {
		if (L->it[i].ext == 1)
			continue;
		last += (L->it[i].ext - 1) * L->it[i].stride;
		if (L->it[i].stride == 1 && !rl)
			rl = L->it[i].ext;
		else if (L->it[i].stride < pitch)
			pitch = L->it[i].stride;
	}
	for (int i = 0; i < L->n; i++)
		if (L->it[i].ext > 1 && L->it[i].stride != 1 && L->it[i].stride % pitch)
			return false;
	if (!rl || pitch == INT64_MAX || pitch <= rl || last / pitch * pitch + pitch > b->storage)
		return false;
	if (ext * p->vec != rl || end * p->vec > pitch || !affine_divisible(&s->off[AX_M], pitch))
		return false;
	return shared_strides_divisible(p, pitch); /* the digits before the row's */
}

void gs_widen_shared(const CopyOp *op, const View *s, Part *p)
{
	int64_t es = dtype_bytes(op->dt), chunk = s->L.sw.on ? ((int64_t)1 << s->L.sw.p) : INT64_MAX;
	if (p->nout == 0 || p->out[p->nout - 1].b != p->vec)
		return;
	Pair *q = &p->out[p->nout - 1];
	for (int64_t bytes = 16; bytes >= 4 && bytes > p->vec * es; bytes /= 2) {
		int64_t n = bytes / es, w = n / p->vec;
		if (bytes % es || n % p->vec || w > 16 || q->ext < w || n > chunk || !affine_divisible(&s->off[AX_M], n) ||
		    !shared_strides_divisible(p, n))
			continue;
		/* every wide access starts n-aligned; a remainder of the digit
		 * (31 rows of 8-byte accesses) follows in narrower aligned pieces */
		int64_t ext = q->ext, whole = ext / w;
		p->wide = (int)w;
		p->wide_a = q->a;
		p->tail_at = p->nout - 1;
		plan_tail(p, whole * w, ext - whole * w, es);
		p->tail_use = 0;
		if (p->ntail > 1 && read_over_padding(op, s, p, ext, whole * w + w)) { /* what ptxas would merge */
			p->tail_use = (int)(ext - whole * w);
			p->ntail = 1;
			p->tail_n[0] = (int)w;
		}
		p->outer = p->outer / ext * whole;
		if (whole == 1) {
			p->nout--;
		} else {
			q->ext = whole;
			q->a *= w;
			q->b *= w;
		}
		return;
	}
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

/* take a vector of `need` elements that is one contiguous run on side b
 * (memory) from any of p[0..*n): below a 32-bit word (epw elements) the
 * run is contiguous on side a (registers) too, above it side a only keeps
 * whole words, so the vector's words may be any registers. Taken digits go
 * to out, most significant first. */
static bool carve_memory_run(Pair *p, int *n, int64_t need, int64_t epw, Pair *out, int *nout)
{
	Pair rev[4];
	int nr = 0;
	int64_t expect = 1;
	while (need > 1) {
		int i = 0;
		while (i < *n && p[i].b != expect)
			i++;
		if (i == *n || nr == 4)
			return false;
		Pair *q = &p[i];
		if (q->ext <= need ? need % q->ext : q->ext % need)
			return false;
		if (expect < epw ? q->a != expect : q->a % epw)
			return false;
		int64_t take = q->ext <= need ? q->ext : need;
		rev[nr++] = (Pair){take, q->a, q->b, q->axis};
		if (take == q->ext) {
			memmove(q, q + 1, sizeof(Pair) * (size_t)(*n - i - 1));
			(*n)--;
		} else {
			q->ext /= take;
			q->a *= take;
			q->b *= take;
		}
		need /= take;
		expect *= take;
	}
	for (int i = 0; i < nr; i++)
		out[i] = rev[nr - 1 - i];
	*nout = nr;
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
	/* threads: a dense mixed radix of the owner's thread index, replica
	 * digits included (they move no memory offset) */
	for (int i = 0; i < r->L.nrep; i++)
		p.rep[p.nrep++] = (Pair){r->L.rep[i].ext, r->L.rep[i].stride, 0, r->L.rep[i].axis};
	Pair sorted[MAX_ITERS + MAX_REPS];
	memcpy(sorted, p.thr, sizeof(Pair) * (size_t)p.nthr);
	memcpy(sorted + p.nthr, p.rep, sizeof(Pair) * (size_t)p.nrep);
	int nsorted = p.nthr + p.nrep;
	for (int i = 1; i < nsorted; i++)
		for (int j = i; j > 0 && sorted[j].a < sorted[j - 1].a; j--) {
			Pair t = sorted[j];
			sorted[j] = sorted[j - 1];
			sorted[j - 1] = t;
		}
	int64_t expect = 1;
	for (int i = 0; i < nsorted; i++) {
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
		if ((c < 5 && cands[c] % bits) || vec < 1 || vec > chunk || per_thread % vec || (s->vec_cap && vec > s->vec_cap))
			continue;
		Pair rest[MAX_ITERS], vp[MAX_ITERS];
		int nr = na, nv;
		memcpy(rest, atoms, sizeof(Pair) * (size_t)na);
		/* registers: offsets are static; memory: offsets and strides aligned */
		bool ok = carve_tail(rest, &nr, vec, true, vp, &nv) && affine_divisible(&r->off[AX_M], vec) &&
		          affine_divisible(&s->off[AX_M], vec);
		for (int i = 0; i < nr && ok; i++)
			ok = rest[i].a % vec == 0 && rest[i].b % vec == 0;
		for (int i = 0; i < p.nthr && ok; i++)
			ok = p.thr[i].b % vec == 0;
		p.nvp = 0;
		if (!ok && vec * bits > 32) {
			/* the memory run need not be the registers' innermost digits:
			 * a vector's words may be any registers (ptxas merges such
			 * loads itself, so the bank model would count what never runs) */
			int rbits = dtype_bytes(op->rdt) * 8; /* a converting copy's registers are f32 */
			int64_t epw = rbits < 32 ? 32 / rbits : 1;
			nr = na;
			memcpy(rest, atoms, sizeof(Pair) * (size_t)na);
			ok = carve_memory_run(rest, &nr, vec, epw, p.vp, &p.nvp) && affine_divisible(&r->off[AX_M], epw) &&
			     affine_divisible(&s->off[AX_M], vec);
			for (int i = 0; i < nr && ok; i++)
				ok = rest[i].a % epw == 0 && rest[i].b % vec == 0;
			for (int i = 0; i < p.nthr && ok; i++)
				ok = p.thr[i].b % vec == 0;
		}
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

/* acc + x * k, or x * k when there is no acc yet (constant folding: no
 * zero register, no multiply by one) */
static Reg lin(Emit *e, Reg acc, bool *has, Reg x, int64_t k)
{
	Builder *b = emit_builder(e);
	Reg r;
	if (!*has) {
		*has = true;
		if (k == 1)
			return x;
		r = b_reg(b, RC_R);
		if (k > 0 && !(k & (k - 1))) {
			int s = 0;
			while (((int64_t)1 << s) < k)
				s++;
			b_ins(b, FORM_SHL_B32, b_name(b, r), b_name(b, x), b_imm(b, s), NULL);
		} else {
			b_ins(b, FORM_MUL_LO_U32, b_name(b, r), b_name(b, x), b_imm(b, (int64_t)(uint32_t)k), NULL);
		}
		return r;
	}
	r = b_reg(b, RC_R);
	b_ins(b, FORM_MAD_LO_U32, b_name(b, r), b_name(b, x), b_imm(b, (int64_t)(uint32_t)k), b_name(b, acc), NULL);
	return r;
}

static int view_terms(const Part *p, Reg thread, bool side_a, Term *tm)
{
	int nt = 0;
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
		tm[nt++] = (Term){thread, div, q->ext, stride};
	}
	return nt;
}

Off emit_view_offset(Emit *e, const Part *p, const View *v, Reg thread, bool side_a)
{
	Term tm[MAX_ITERS];
	int nt = view_terms(p, thread, side_a, tm);
	return emit_offset_terms(e, &v->off[AX_M], tm, nt);
}

/* ((t / d) % m) * s + ((t / (d * m)) % m2) * (s * m) is one digit
 * ((t / d) % (m * m2)) * s: fewer live values (nvcc's (lane * 16) & 496
 * where the terms say (lane % 8) * 8 + (lane / 8 % 4) * 64) */
static int fuse_terms(Term *tm, int nt)
{
	for (bool again = true; again;) {
		again = false;
		for (int i = 0; i < nt && !again; i++)
			for (int j = 0; j < nt && !again; j++) {
				Term *a = &tm[i], *b = &tm[j];
				if (i == j || a->t.cls != b->t.cls || a->t.id != b->t.id || a->mod <= 0 ||
				    a->mod >= ((int64_t)1 << 31) || a->div <= 0 || a->div > INT64_MAX / a->mod ||
				    a->stride > INT64_MAX / a->mod || a->stride < -(INT64_MAX / a->mod) ||
				    b->div != a->div * a->mod || b->stride != a->stride * a->mod ||
				    (b->mod > 0 && b->mod >= ((int64_t)1 << 31) / a->mod))
					continue; /* (the products checked first cannot overflow) */
				a->mod = b->mod > 0 ? a->mod * b->mod : 0;
				tm[j] = tm[--nt];
				again = true;
			}
	}
	return nt;
}

Off emit_offset_terms(Emit *e, const Affine *af, const Term *tm_in, int nt)
{
	Off o = {.c = af->c};
	Term fused[MAX_ITERS + 8];
	const Term *tm = tm_in;
	if (nt <= MAX_ITERS + 8) {
		memcpy(fused, tm_in, sizeof(Term) * (size_t)nt);
		nt = fuse_terms(fused, nt);
		tm = fused;
	}
	for (int i = 0; i < af->n; i++)
		o.may_neg |= af->t[i].k < 0;
	int64_t key[2 + 5 * (MAX_ITERS + 8) + 2 * MAX_TERMS];
	int nk = 0;
	bool inv_thread = true;
	key[nk++] = 2;
	for (int i = 0; i < nt; i++) {
		inv_thread &= emit_is_invariant(e, tm[i].t);
		key[nk++] = tm[i].t.cls;
		key[nk++] = tm[i].t.id;
		key[nk++] = tm[i].div;
		key[nk++] = tm[i].mod;
		key[nk++] = tm[i].stride;
	}
	/* hoisted: the thread digits once per thread (shared by both sides of a
	 * copy and by every copy with the same split), then CTA/warp terms */
	if (inv_thread && nt) {
		if (nt == 1) {
			o.inv_x = emit_digit(e, tm[0].t, tm[0].div, tm[0].mod);
			o.inv_k = tm[0].stride;
		}
		if (!emit_memo_find(e, key, nk, &o.inv)) {
			emit_hoist_begin(e);
			for (int i = 0; i < nt; i++)
				o.inv = lin(e, o.inv, &o.has_inv, emit_digit(e, tm[i].t, tm[i].div, tm[i].mod), tm[i].stride);
			emit_hoist_end(e);
			emit_memo_put(e, key, nk, o.inv);
		}
		o.has_inv = true;
	}
	nk = 0;
	key[nk++] = 4;
	key[nk++] = o.has_inv ? o.inv.id : -1;
	for (int i = 0; i < af->n; i++)
		if (emit_var_invariant(af->t[i].var) && af->t[i].k) {
			key[nk++] = af->t[i].var;
			key[nk++] = af->t[i].k;
		}
	if (nk > 2) {
		Reg r;
		o.inv_k = 0;
		if (emit_memo_find(e, key, nk, &r)) {
			o.inv = r;
		} else {
			emit_hoist_begin(e);
			for (int i = 0; i < af->n; i++)
				if (emit_var_invariant(af->t[i].var) && af->t[i].k)
					o.inv = lin(e, o.inv, &o.has_inv, emit_var_reg(e, af->t[i].var), af->t[i].k);
			emit_hoist_end(e);
			emit_memo_put(e, key, nk, o.inv);
		}
		o.has_inv = true;
	}
	/* per statement: repeat indices (and digits of a non-prologue thread) */
	if (!inv_thread)
		for (int i = 0; i < nt; i++)
			o.var = lin(e, o.var, &o.has_var, emit_digit(e, tm[i].t, tm[i].div, tm[i].mod), tm[i].stride);
	for (int i = 0; i < af->n; i++)
		if (!emit_var_invariant(af->t[i].var) && af->t[i].k)
			o.var = lin(e, o.var, &o.has_var, emit_var_reg(e, af->t[i].var), af->t[i].k);
	return o;
}

/* inv + var as one register (none: *has false) */
static Reg off_reg(Emit *e, const Off *o, bool *has)
{
	Builder *b = emit_builder(e);
	*has = o->has_inv || o->has_var;
	if (!o->has_var)
		return o->inv;
	if (!o->has_inv)
		return o->var;
	Reg r = b_reg(b, RC_R);
	b_ins(b, FORM_ADD_U32, b_name(b, r), b_name(b, o->inv), b_name(b, o->var), NULL);
	return r;
}

Reg emit_thread_offset(Emit *e, const Part *p, const View *v, Reg thread, bool side_a)
{
	Off o = emit_view_offset(e, p, v, thread, side_a);
	bool has;
	Reg r = off_reg(e, &o, &has);
	if (!has)
		return b_const32(emit_builder(e), o.c);
	return b_add32_imm(emit_builder(e), r, o.c);
}

static bool swizzled(Emit *e, const Buffer *buf)
{
	return buf->mem == MEM_SHARED && buffer_swizzle(emit_ctx(e), buf).on;
}

/* ---- params with runtime extents (rank 1 or 2, row-major) ----
 * The partition was planned on the layout whose row stride is the stand-in
 * Buffer.dyn_proxy, larger than any column offset in a tile, so every tile
 * offset and stride c splits exactly into c / proxy rows and c % proxy
 * columns. The side's register is the address of the thread's first element
 * (row R, column C); rows become runtime multiples of the row stride. */
struct DynCache {
	int64_t key[16][2];
	Reg val[16];
	int n;
};

static void dyn_split(const Side *s, int64_t c, int64_t *rows, int64_t *cols)
{
	*rows = s->proxy ? c / s->proxy : 0;
	*cols = s->proxy ? c % s->proxy : c;
}

static Reg off_value(Emit *e, const Off *o)
{
	bool has;
	Reg r = off_reg(e, o, &has);
	return has ? b_add32_imm(emit_builder(e), r, o->c) : b_const32(emit_builder(e), o->c);
}

static int log2_bytes(int bytes) { return bytes == 1 ? 0 : bytes == 2 ? 1 : bytes == 4 ? 2 : 3; }

/* the row stride (elements) as a u32 operand: the scalar's register or a constant */
static const char *row_stride(Emit *e, const Kernel *k, const Buffer *b)
{
	Builder *bl = emit_builder(e);
	int in = dyn_inner(b);
	if (b->ld_scalar)
		return b_name(bl, emit_var_reg(e, k->scalars[b->ld_scalar - 1].var));
	if (b->dyn_dim[in])
		return b_name(bl, emit_var_reg(e, k->scalars[b->dyn_dim[in] - 1].var));
	return b_imm(bl, b->shape[in]);
}

/* a dimension's extent as a u64 operand: the scalar's register widened, or a constant */
static const char *extent64(Emit *e, const Kernel *k, const Buffer *buf, int d)
{
	Builder *b = emit_builder(e);
	if (!buf->dyn_dim[d])
		return b_imm(b, buf->shape[d]);
	Reg w = b_reg(b, RC_RD);
	b_ins(b, FORM_CVT_U64_U32, b_name(b, w), b_name(b, emit_var_reg(e, k->scalars[buf->dyn_dim[d] - 1].var)), NULL);
	return b_name(b, w);
}

/* the address of region r's slab: the param's base, and for rank 3..5 its
 * point-indexed outer dimensions (region.c) times the extents below them,
 * in 64 bits (Horner over the runtime extents) */
static Reg dyn_slab(Emit *e, const Kernel *k, const Region *r)
{
	const Buffer *buf = r->buf;
	if (buf->ndim < 3)
		return emit_global_base(e, buf);
	Builder *b = emit_builder(e);
	Reg h = b_reg(b, RC_RD);
	b_ins(b, FORM_CVT_U64_U32, b_name(b, h), b_name(b, emit_affine(e, &r->begin[0])), NULL);
	for (int d = 1; d < buf->ndim; d++) {
		Reg n = b_reg(b, RC_RD);
		const char *add = "0";
		if (d + 2 < buf->ndim) {
			Reg a = b_reg(b, RC_RD);
			b_ins(b, FORM_CVT_U64_U32, b_name(b, a), b_name(b, emit_affine(e, &r->begin[d])), NULL);
			add = b_name(b, a);
		}
		b_ins(b, FORM_MAD_LO_U64, b_name(b, n), b_name(b, h), extent64(e, k, buf, d), add, NULL);
		h = n;
	}
	Reg by = b_reg(b, RC_RD), at = b_reg(b, RC_RD);
	b_ins(b, FORM_SHL_B64, b_name(b, by), b_name(b, h), b_imm(b, log2_bytes(dtype_bytes(buf->dt))), NULL);
	b_ins(b, FORM_ADD_U64, b_name(b, at), b_name(b, emit_global_base(e, buf)), b_name(b, by), NULL);
	return at;
}

Reg emit_dyn_address(Emit *e, const Kernel *k, const Region *r, Reg row, Reg col)
{
	const Buffer *buf = r->buf;
	Builder *b = emit_builder(e);
	int es = dtype_bytes(buf->dt);
	Reg at = b_reg(b, RC_RD), bytes = b_reg(b, RC_RD);
	if (buf->ndim >= 2) {
		Reg c64 = b_reg(b, RC_RD), el = b_reg(b, RC_RD);
		b_ins(b, FORM_CVT_U64_U32, b_name(b, c64), b_name(b, col), NULL);
		b_ins(b, FORM_MAD_WIDE_U32, b_name(b, el), b_name(b, row), row_stride(e, k, buf), b_name(b, c64), NULL);
		b_ins(b, FORM_SHL_B64, b_name(b, bytes), b_name(b, el), b_imm(b, log2_bytes(es)), NULL);
	} else {
		b_ins(b, FORM_MUL_WIDE_U32, b_name(b, bytes), b_name(b, col), b_imm(b, es), NULL);
	}
	b_ins(b, FORM_ADD_U64, b_name(b, at), b_name(b, dyn_slab(e, k, r)), b_name(b, bytes), NULL);
	return at;
}

Reg emit_dyn_left(Emit *e, const Kernel *k, const Buffer *b, int d, Reg coord)
{
	Builder *bl = emit_builder(e);
	Reg r = b_reg(bl, RC_R);
	const char *bound = b_name(bl, emit_var_reg(e, k->scalars[b->dyn_dim[d] - 1].var));
	b_ins(bl, FORM_SUB_U32, b_name(bl, r), bound, b_name(bl, coord), NULL);
	return r;
}

Side emit_dyn_side(Emit *e, const CopyOp *op, const Part *p, const Region *r, Reg thread, bool side_a)
{
	const Buffer *buf = r->buf;
	Side s = {.buf = buf, .bytes = dtype_bytes(buf->dt), .dyn = true, .proxy = buf->dyn_proxy, .has_r = true};
	s.cache = arena_alloc(op->cx->arena, sizeof *s.cache);
	Term tm[MAX_ITERS], rows[MAX_ITERS], cols[MAX_ITERS];
	int nt = view_terms(p, thread, side_a, tm), nr = 0, nc = 0;
	for (int i = 0; i < nt; i++) {
		int64_t dr, dc;
		dyn_split(&s, tm[i].stride, &dr, &dc);
		if (dr)
			rows[nr++] = (Term){tm[i].t, tm[i].div, tm[i].mod, dr};
		if (dc)
			cols[nc++] = (Term){tm[i].t, tm[i].div, tm[i].mod, dc};
	}
	int last = dyn_inner(buf), outer = dyn_outer(buf);
	Off oc = emit_offset_terms(e, &r->begin[last], cols, nc);
	Reg C = off_value(e, &oc), R = {0};
	if (buf->ndim >= 2) {
		Off orow = emit_offset_terms(e, &r->begin[outer], rows, nr);
		R = off_value(e, &orow);
	}
	s.r = emit_dyn_address(e, op->k, r, R, C);
	if (buf->ndim >= 2 && region_guarded(op->k, r, outer)) {
		s.guard[0] = true;
		s.left[0] = emit_dyn_left(e, op->k, buf, outer, R);
	}
	if (region_guarded(op->k, r, last)) {
		s.guard[1] = true;
		s.left[1] = emit_dyn_left(e, op->k, buf, last, C);
	}
	return s;
}

static Side dyn_step(Emit *e, Side s, Reg x, int64_t k)
{
	Builder *b = emit_builder(e);
	int64_t dr, dc;
	dyn_split(&s, k, &dr, &dc);
	Reg at = s.r;
	if (dr) {
		Reg n = b_reg(b, RC_R), el = b_reg(b, RC_RD), by = b_reg(b, RC_RD), na = b_reg(b, RC_RD);
		b_ins(b, FORM_MUL_LO_U32, b_name(b, n), b_name(b, x), b_imm(b, dr), NULL);
		b_ins(b, FORM_MUL_WIDE_U32, b_name(b, el), b_name(b, n), row_stride(e, emit_kernel_of(e), s.buf), NULL);
		b_ins(b, FORM_SHL_B64, b_name(b, by), b_name(b, el), b_imm(b, log2_bytes(s.bytes)), NULL);
		b_ins(b, FORM_ADD_U64, b_name(b, na), b_name(b, at), b_name(b, by), NULL);
		at = na;
	}
	if (dc) {
		Reg w = b_reg(b, RC_RD), na = b_reg(b, RC_RD);
		b_ins(b, FORM_MUL_WIDE_U32, b_name(b, w), b_name(b, x), b_imm(b, dc * s.bytes), NULL);
		b_ins(b, FORM_ADD_U64, b_name(b, na), b_name(b, at), b_name(b, w), NULL);
		at = na;
	}
	for (int d = 0; d < 2; d++) {
		int64_t step = d ? dc : dr;
		if (!s.guard[d] || !step)
			continue;
		Reg l = b_reg(b, RC_R), t = b_reg(b, RC_R);
		b_ins(b, FORM_MUL_LO_U32, b_name(b, t), b_name(b, x), b_imm(b, step), NULL);
		b_ins(b, FORM_SUB_U32, b_name(b, l), b_name(b, s.left[d]), b_name(b, t), NULL);
		s.left[d] = l;
	}
	s.r = at;
	s.cache = arena_alloc(emit_builder(e)->arena, sizeof *s.cache); /* new registers, new rows */
	return s;
}

static Reg *dyn_cached(const Side *s, int64_t kind, int64_t v)
{
	struct DynCache *c = s->cache;
	for (int i = 0; i < c->n; i++)
		if (c->key[i][0] == kind && c->key[i][1] == v)
			return &c->val[i];
	return NULL;
}

static void dyn_cache_put(const Side *s, int64_t kind, int64_t v, Reg r)
{
	struct DynCache *c = s->cache;
	if (c->n == 16)
		return;
	c->key[c->n][0] = kind;
	c->key[c->n][1] = v;
	c->val[c->n++] = r;
}

static const char *dyn_operand(Emit *e, const Side *s, int64_t c)
{
	Builder *b = emit_builder(e);
	int64_t dr, dc;
	dyn_split(s, c, &dr, &dc);
	if (!dr)
		return b_addr(b, s->r, dc * s->bytes);
	int in = dyn_inner(s->buf);
	if (!s->buf->dyn_dim[in] && !s->buf->ld_scalar) /* a constant row stride: an immediate */
		return b_addr(b, s->r, (dr * s->buf->shape[in] + dc) * s->bytes);
	Reg *row = dyn_cached(s, 0, dr);
	if (!row) {
		Reg w = b_reg(b, RC_RD), a = b_reg(b, RC_RD);
		b_ins(b, FORM_MUL_WIDE_U32, b_name(b, w), row_stride(e, emit_kernel_of(e), s->buf), b_imm(b, dr * s->bytes),
		      NULL);
		b_ins(b, FORM_ADD_U64, b_name(b, a), b_name(b, s->r), b_name(b, w), NULL);
		dyn_cache_put(s, 0, dr, a);
		return b_addr(b, a, dc * s->bytes);
	}
	return b_addr(b, *row, dc * s->bytes);
}

const char *emit_side_guard(Emit *e, const Side *s, int64_t extra, bool out)
{
	if (!s->dyn || (!s->guard[0] && !s->guard[1]))
		return NULL;
	Builder *b = emit_builder(e);
	int64_t c = s->c + extra, d[2];
	dyn_split(s, c, &d[0], &d[1]);
	/* in: left > offset on every guarded dimension; out: left <= offset on one.
	 * The column test is cached per column offset (a thread's accesses mostly
	 * share it), the row test joins it: one setp per access */
	Reg col = {0};
	bool has_col = false;
	if (s->guard[1]) {
		Reg *cached = dyn_cached(s, out ? 2 : 1, d[1]);
		if (cached) {
			col = *cached;
		} else {
			col = b_reg(b, RC_P);
			b_ins(b, out ? FORM_SETP_LE_S32 : FORM_SETP_GT_S32, b_name(b, col), b_name(b, s->left[1]), b_imm(b, d[1]),
			      NULL);
			dyn_cache_put(s, out ? 2 : 1, d[1], col);
		}
		has_col = true;
	}
	if (!s->guard[0])
		return b_name(b, col);
	Reg p = b_reg(b, RC_P);
	if (has_col)
		b_ins(b, out ? FORM_SETP_LE_OR_S32 : FORM_SETP_GT_AND_S32, b_name(b, p), b_name(b, s->left[0]),
		      b_imm(b, d[0]), b_name(b, col), NULL);
	else
		b_ins(b, out ? FORM_SETP_LE_S32 : FORM_SETP_GT_S32, b_name(b, p), b_name(b, s->left[0]), b_imm(b, d[0]), NULL);
	return b_name(b, p);
}

Side emit_side(Emit *e, const Buffer *buf, const Off *o)
{
	Side s = {.buf = buf, .bytes = dtype_bytes(buf->dt), .c = o->c};
	if (swizzled(e, buf)) { /* element offsets; the swizzle is applied per access */
		s.r = off_reg(e, o, &s.has_r);
		return s;
	}
	bool global = buf->mem == MEM_GLOBAL;
	if (global && o->may_neg) {
		/* 32-bit offsets wrap, so the sum is right only once the constant is in:
		 * add it before widening (64 - 64*warpid is below 0 before the 64) */
		s.r = emit_address(e, buf, off_value(e, o));
		s.has_r = true;
		s.c = 0;
		return s;
	}
	Reg base = global ? emit_global_base(e, buf) : emit_shared_base(e, buf);
	s.has_r = true;
	s.r = base;
	if (o->has_inv) { /* base + thread offset: hoisted with it */
		int64_t key[] = {3, (int64_t)(intptr_t)buf, o->inv.id};
		if (!emit_memo_find(e, key, 3, &s.r)) {
			emit_hoist_begin(e);
			/* global: the byte offset straight from the thread digit, one
			 * mul.wide shared by every param (the shared side keeps its
			 * 32-bit element offset: measured, ptxas then needs no more
			 * registers than for nvcc's code on any bench/codegen pair) */
			if (global && o->inv_k > 0 && o->inv_k * s.bytes < ((int64_t)1 << 31)) {
				Builder *b = emit_builder(e);
				int64_t wkey[] = {6, o->inv_x.cls, o->inv_x.id, o->inv_k * s.bytes};
				Reg w;
				if (!emit_memo_find(e, wkey, 4, &w)) {
					w = b_reg(b, RC_RD);
					b_ins(b, FORM_MUL_WIDE_U32, b_name(b, w), b_name(b, o->inv_x), b_imm(b, o->inv_k * s.bytes), NULL);
					emit_memo_put(e, wkey, 4, w);
				}
				s.r = b_reg(b, RC_RD);
				b_ins(b, FORM_ADD_U64, b_name(b, s.r), b_name(b, base), b_name(b, w), NULL);
			} else {
				s.r = emit_address(e, buf, o->inv);
			}
			emit_hoist_end(e);
			emit_memo_put(e, key, 3, s.r);
		}
	}
	if (o->has_var)
		s = emit_side_step(e, s, o->var, 1);
	return s;
}

Side emit_side_step(Emit *e, Side s, Reg x, int64_t k)
{
	Builder *b = emit_builder(e);
	if (k == 0)
		return s;
	if (s.dyn)
		return dyn_step(e, s, x, k);
	if (swizzled(e, s.buf)) {
		s.r = lin(e, s.r, &s.has_r, x, k);
		return s;
	}
	Reg r;
	if (s.buf->mem == MEM_GLOBAL) {
		Reg w = b_reg(b, RC_RD);
		r = b_reg(b, RC_RD);
		b_ins(b, FORM_MUL_WIDE_U32, b_name(b, w), b_name(b, x), b_imm(b, k * s.bytes), NULL);
		b_ins(b, FORM_ADD_U64, b_name(b, r), b_name(b, s.r), b_name(b, w), NULL);
	} else {
		r = b_reg(b, RC_R);
		b_ins(b, FORM_MAD_LO_U32, b_name(b, r), b_name(b, x), b_imm(b, k * s.bytes), b_name(b, s.r), NULL);
	}
	s.r = r;
	return s;
}

const char *emit_side_operand(Emit *e, const Side *s, int64_t extra)
{
	Builder *b = emit_builder(e);
	int64_t c = s->c + extra;
	if (s->dyn)
		return dyn_operand(e, s, c);
	if (!swizzled(e, s->buf))
		return b_addr(b, s->r, c * s->bytes);
	Swizzle sw = buffer_swizzle(emit_ctx(e), s->buf);
	int64_t span = (int64_t)1 << (sw.p + sw.w + sw.a);
	/* whole swizzle spans pass through the XOR unchanged: compile-time part */
	int64_t hi = c >= 0 ? c / span * span : 0, lo = c - hi;
	if (!s->has_r)
		return b_addr(b, emit_shared_base(e, s->buf), swz_apply(sw, c) * s->bytes);
	Reg m = b_add32_imm(b, s->r, lo);
	return b_addr(b, emit_address(e, s->buf, m), hi * s->bytes);
}

/* cp.async zero-fills through its ignore-src predicate (true: out of bounds) */
static bool access_guard_out(const CopyOp *op, const Side *g)
{
	(void)g;
	return op->st->kind == ST_COPY_ASYNC;
}

/* unroll: levels of 2..16 trips, innermost first, while the unrolled body
 * stays at most 32 accesses; outside that, serial loops */
static void loops(const CopyOp *op, Emit *e, const Part *p, int level, int first_unrolled, Side sa, Side sb,
                  int64_t ca, int64_t cb, AccessFn access, const void *ctx);

/* the pieces of a widened digit's remainder (Part.ntail), at constant
 * offsets from the step of the digits before it */
static void tail_accesses(const CopyOp *op, Emit *e, const Part *p, Side sa, Side sb, int64_t ca, int64_t cb,
                          AccessFn access, const void *ctx)
{
	for (int i = 0; i < p->ntail; i++) {
		int64_t at = ca + p->tail_start[i] * p->wide_a, bt = cb + p->tail_start[i] * p->vec;
		AccessOps ac = {emit_side_operand(e, &sa, at), emit_side_operand(e, &sb, bt), {NULL}, 0, NULL, false, 0};
		ac.nuse = p->tail_use;
		for (ac.nw = 0; ac.nw < p->tail_n[i]; ac.nw++) /* pieces past tail_use are padding: no side-a operand */
			ac.aw[ac.nw] = !ac.nw ? ac.a : !ac.nuse || ac.nw < ac.nuse ? emit_side_operand(e, &sa, at + ac.nw * p->wide_a) : NULL;
		access(op, e, ctx, &ac);
	}
}

static void loops(const CopyOp *op, Emit *e, const Part *p, int level, int first_unrolled, Side sa, Side sb,
                  int64_t ca, int64_t cb, AccessFn access, const void *ctx)
{
	if (p->ntail && level == p->tail_at) { /* the digit's wide accesses, then its remainder */
		Part whole = *p;
		whole.ntail = 0;
		loops(op, e, &whole, level, first_unrolled, sa, sb, ca, cb, access, ctx);
		tail_accesses(op, e, p, sa, sb, ca, cb, access, ctx);
		return;
	}
	if (level == p->nout) {
		AccessOps ac = {emit_side_operand(e, &sa, ca), emit_side_operand(e, &sb, cb), {NULL}, 0, NULL, false, 0};
		if (p->wide > 1) /* the global pieces of one wide shared access (no dynamic sides here) */
			for (ac.nw = 0; ac.nw < p->wide; ac.nw++)
				ac.aw[ac.nw] = ac.nw ? emit_side_operand(e, &sa, ca + ac.nw * p->wide_a) : ac.a;
		/* a guarded side (a's is the global one when a param has runtime extents) */
		const Side *g = sa.dyn ? &sa : sb.dyn ? &sb : NULL;
		if (g) {
			ac.guard_out = access_guard_out(op, g);
			ac.guard = emit_side_guard(e, g, g == &sa ? ca : cb, ac.guard_out);
		}
		access(op, e, ctx, &ac);
		return;
	}
	const Pair *q = &p->out[level];
	if (level >= first_unrolled) {
		for (int64_t i = 0; i < q->ext; i++)
			loops(op, e, p, level + 1, first_unrolled, sa, sb, ca + i * q->a, cb + i * q->b, access, ctx);
		return;
	}
	Loop l = emit_loop_begin(e, q->ext);
	Side na = emit_side_step(e, sa, l.counter, q->a), nb = emit_side_step(e, sb, l.counter, q->b);
	loops(op, e, p, level + 1, first_unrolled, na, nb, ca, cb, access, ctx);
	emit_loop_end(e, &l);
}

void emit_partition_loops(const CopyOp *op, Emit *e, const Part *p, const View *a, const View *b, Reg thread,
                          AccessFn access, const void *ctx)
{
	const Buffer *abuf = a == &op->dst ? op->dbuf : op->sbuf, *bbuf = b == &op->dst ? op->dbuf : op->sbuf;
	const Region *ar = a == &op->dst ? op->st->dst : op->st->src, *br = b == &op->dst ? op->st->dst : op->st->src;
	Off oa = {0}, ob = {0};
	if (!abuf->dynamic)
		oa = emit_view_offset(e, p, a, thread, true);
	if (!bbuf->dynamic)
		ob = emit_view_offset(e, p, b, thread, false);
	Side sa = abuf->dynamic ? emit_dyn_side(e, op, p, ar, thread, true) : emit_side(e, abuf, &oa);
	Side sb = bbuf->dynamic ? emit_dyn_side(e, op, p, br, thread, false) : emit_side(e, bbuf, &ob);
	int first = p->nout;
	int64_t body = 1;
	while (first > 0 && p->out[first - 1].ext <= 16 && body * p->out[first - 1].ext <= 32)
		body *= p->out[--first].ext;
	loops(op, e, p, 0, first, sa, sb, 0, 0, access, ctx);
}

/* ---- access traces ---- */

void trace_instance_vars(int64_t *vals, int64_t first)
{
	vals[VAR_WARPID] = first / 32;
	vals[VAR_WGID] = first / 128;
}

int64_t part_thread_offset(const Part *p, int64_t t, bool side_a)
{
	int64_t off = 0;
	for (int i = 0; i < p->nthr; i++) { /* the divisors of emit_view_offset */
		const Pair *q = &p->thr[i];
		int64_t div = 1;
		if (axis_is_thread(q->axis))
			div = q->a;
		else
			for (int j = i + 1; j < p->nthr; j++)
				div *= p->thr[j].ext;
		if (axis_is_thread(q->axis) && side_a)
			continue;
		off += (t / div) % q->ext * (side_a ? q->a : q->b);
	}
	return off;
}

int64_t part_outer_offset(const Part *p, int64_t f, bool side_a)
{
	int64_t off = 0;
	for (int i = p->nout - 1; i >= 0; i--) {
		off += f % p->out[i].ext * (side_a ? p->out[i].a : p->out[i].b);
		f /= p->out[i].ext;
	}
	return off;
}

int64_t part_replica_of(const Part *p, int64_t t)
{
	int64_t r = 0;
	for (int i = 0; i < p->nrep; i++)
		r = r * p->rep[i].ext + t / p->rep[i].a % p->rep[i].ext;
	return r;
}

/* the accesses of Part.ntail's pieces, numbered after the wide ones in the
 * order tail_accesses emits them */
static void trace_tail(const Part *p, const Buffer *buf, int64_t tid, int64_t to, bool side_a, bool write,
                       int64_t es, TraceFn fn, void *ctx)
{
	int64_t steps = 1;
	for (int i = 0; i < p->tail_at; i++)
		steps *= p->out[i].ext;
	for (int64_t g = 0; p->ntail && g < steps; g++) {
		int64_t off = 0, f = g;
		for (int i = p->tail_at - 1; i >= 0; i--) { /* the digits before it, as part_outer_offset */
			off += f % p->out[i].ext * (side_a ? p->out[i].a : p->out[i].b);
			f /= p->out[i].ext;
		}
		for (int j = 0; j < p->ntail; j++) {
			int64_t e = to + off + p->tail_start[j] * (side_a ? p->wide_a : p->vec);
			Access a = {buf, tid, p->outer + g * p->ntail + j, e, (int)(p->tail_n[j] * p->vec * es), write};
			fn(ctx, &a);
		}
	}
}

void trace_part(const CopyOp *op, const Part *p, const View *v, bool side_a, const Buffer *buf, bool write, Scope by,
                int64_t *vals, TraceFn fn, void *ctx)
{
	int64_t T = op->k->threads, byT = scope_threads(by, T), S = op->scope_threads;
	int bytes = p->vec * (p->wide > 1 ? p->wide : 1) * dtype_bytes(op->dt);
	for (int64_t first = 0; first < T; first += S) {
		trace_instance_vars(vals, first);
		int64_t base = affine_eval(&v->off[AX_M], vals);
		for (int64_t tid = first; tid < first + S && tid < T; tid++) {
			int64_t t = tid % byT;
			if (t >= p->thr_size || (write && part_replica_of(p, t)))
				continue;
			int64_t to = base + part_thread_offset(p, t, side_a);
			for (int64_t f = 0; f < p->outer; f++) {
				Access a = {buf, tid, f, to + part_outer_offset(p, f, side_a), bytes, write};
				fn(ctx, &a);
			}
			trace_tail(p, buf, tid, to, side_a, write, dtype_bytes(op->dt), fn, ctx);
		}
	}
}
