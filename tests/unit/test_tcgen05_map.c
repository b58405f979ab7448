#define _POSIX_C_SOURCE 200809L
/* The tcgen05 mapping test (no Blackwell GPU needed). For every tcgen05.ld /
 * tcgen05.st that tilepx emits for tests/explain/tcgen05_grid.tile and the
 * seed 001 example, this reads the instruction from the PTX text (shape, num,
 * address immediate, register list), maps each (thread, register) to a
 * tensor-memory (lane, column) with the fragment table of PTX_REFERENCE.md
 * 7.3, and checks that the copy it belongs to lands every logical element
 * where the .tile semantics say: DST[c] = SRC[c] for every c, each element
 * exactly once. Only the program's layouts and the PTX text are read, never
 * the variant's decisions. Warp w of the warpgroup addresses lanes 32w..
 * (the lane-quarter rule); the test checks the emitted shl by 21 that does it. */
#include "unit.h"

#include <stdlib.h>

/* fragment table, PTX_REFERENCE.md 7.3: lane offset and 32-bit column of
 * register j of thread t (lane in warp) */
static void fragment(const char *shape, int t, int j, int64_t half, int64_t *lane, int64_t *col)
{
	if (!strcmp(shape, "16x32bx2")) {
		*lane = t % 16;
		*col = j + half * (t / 16);
	} else if (!strcmp(shape, "32x32b")) {
		*lane = t;
		*col = j;
	} else if (!strcmp(shape, "16x64b")) {
		*lane = t / 4 + 8 * (t % 2);
		*col = 2 * j + (t / 2) % 2;
	} else if (!strcmp(shape, "16x128b")) {
		*lane = t / 4 + 8 * (j % 2);
		*col = (t % 4) + 4 * (j / 2);
	} else { /* 16x256b */
		*lane = t / 4 + 8 * ((j / 2) % 2);
		*col = 2 * (t % 4) + (j % 2) + 8 * (j / 4);
	}
}

typedef struct Ins {
	bool ld;
	char shape[16];
	int num;
	int64_t imm, half;
	bool pack;
	int nregs;
	int regs[128];
} Ins;

static int parse_ins(const char *line, Ins *in)
{
	const char *p = strstr(line, "tcgen05.");
	if (!p || (strncmp(p, "tcgen05.ld.sync", 15) && strncmp(p, "tcgen05.st.sync", 15)))
		return 0;
	in->ld = p[8] == 'l';
	p += strlen("tcgen05.ld.sync.aligned.");
	const char *dot = strchr(p, '.');
	snprintf(in->shape, sizeof in->shape, "%.*s", (int)(dot - p), p);
	in->num = atoi(dot + 2);
	in->pack = strstr(line, "pack::16b") != NULL; /* .pack::16b or .unpack::16b */
	const char *br = strchr(line, '[');
	const char *plus = strchr(br, '+');
	const char *close = strchr(br, ']');
	in->imm = plus && plus < close ? atoll(plus + 1) : 0;
	/* .16x32bx2's immediate follows the address: "[a], imm" in both directions */
	in->half = close[1] == ',' ? atoll(close + 2) : 0;
	in->nregs = 0;
	for (const char *q = strchr(line, '{'); q && *q && *q != '}'; q++)
		if (q[0] == '%' && q[1] == 'r' && q[2] >= '0' && q[2] <= '9')
			in->regs[in->nregs++] = atoi(q + 2);
	return 1;
}

static int64_t owner_thread(const int64_t *at)
{
	return at[AX_TID_IN_WG] + at[AX_LANEID] + 32 * at[AX_WID_IN_WG];
}

/* check one copy statement against its instructions */
static void check_copy(Ctx *cx, const Kernel *k, const Stmt *s, Ins *ins, int nins, int first_word, const char *name)
{
	View dv, sv;
	const char *why;
	CHECK(region_view(cx, k, s->dst, &dv, &why) && region_view(cx, k, s->src, &sv, &why), "%s: views", name);
	bool st = s->dst->buf->mem == MEM_TMEM;
	const Buffer *lb = st ? s->src->buf : s->dst->buf, *tb = st ? s->dst->buf : s->src->buf;
	const View *lv = st ? &sv : &dv, *tv = st ? &dv : &sv;
	int es = dtype_bytes(lb->dt), per32 = 4 / es;
	int64_t elems = 1;
	for (int d = 0; d < s->src->ndim; d++)
		elems *= s->src->ext[d];
	/* where each logical element must be: tensor memory (lane, element column) */
	int64_t ncells = 128 * tb->cols * per32;
	int64_t *want_at = malloc(sizeof(int64_t) * (size_t)elems), *hits = calloc((size_t)elems, sizeof(int64_t));
	/* which logical element each (thread, local element) holds, -1 if none */
	int64_t nloc = 128 * lb->regs;
	int64_t *logical_of = malloc(sizeof(int64_t) * (size_t)nloc);
	for (int64_t i = 0; i < nloc; i++)
		logical_of[i] = -1;
	for (int64_t x = 0; x < elems; x++) {
		int64_t at[AX_COUNT];
		lay_apply_flat(&tv->L, x, at);
		int64_t lane = at[AX_TLANE] + tv->off[AX_TLANE].c, col = at[AX_TCOL] + tv->off[AX_TCOL].c;
		want_at[x] = lane * tb->cols * per32 + col;
		lay_apply_flat(&lv->L, x, at);
		for (int a = 0; a < AX_COUNT; a++)
			at[a] += lv->off[a].c;
		logical_of[owner_thread(at) * lb->regs + at[AX_M]] = x;
	}
	int errors = 0;
	for (int n = 0; n < nins; n++) {
		Ins *in = &ins[n];
		CHECK(in->ld == !st, "%s: instruction direction", name);
		int base = !strcmp(in->shape, "16x128b") ? 2 : !strcmp(in->shape, "16x256b") ? 4 : 1;
		CHECK(in->nregs == base * in->num, "%s: %s.x%d has %d registers", name, in->shape, in->num, in->nregs);
		for (int t = 0; t < 128; t++) {
			int64_t lane0 = 32 * (t / 32) + (in->imm >> 16), col0 = in->imm & 0xffff;
			for (int j = 0; j < in->nregs; j++) {
				int64_t fl, fc;
				fragment(in->shape, t % 32, j, in->half, &fl, &fc);
				int64_t word = in->regs[j] - first_word;
				for (int h = 0; h < per32; h++) {
					int64_t e = word * per32 + h;
					if (e < 0 || e >= lb->regs)
						continue;
					int64_t x = logical_of[t * lb->regs + e];
					if (x < 0) {
						errors++;
						continue;
					}
					/* packed: half h in half h of column fc; with .pack/.unpack::16b the column
					 * offset doubles and half h sits alone (low bits) in column 2fc + h */
					int64_t cell = in->pack ? (lane0 + fl) * tb->cols * per32 + (col0 + 2 * fc + h) * per32
					                        : (lane0 + fl) * tb->cols * per32 + (col0 + fc) * per32 + h;
					if (cell < 0 || cell >= ncells || cell != want_at[x])
						errors++;
					hits[x]++;
				}
			}
		}
	}
	int64_t missing = 0, twice = 0;
	for (int64_t x = 0; x < elems; x++) {
		missing += hits[x] == 0;
		twice += hits[x] > 1;
	}
	CHECK(errors == 0 && missing == 0 && twice == 0, "%s line %d: %d misplaced, %lld missing, %lld twice", name,
	      s->loc.line, errors, (long long)missing, (long long)twice);
	free(want_at);
	free(hits);
	free(logical_of);
}

static void check_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	CHECK(f != NULL, "open %s", path);
	if (!f)
		return;
	static char src[1 << 20];
	size_t len = fread(src, 1, sizeof src - 1, f);
	fclose(f);
	src[len] = 0;
	Ctx cx = {0};
	cx.arena = arena_new();
	cx.diags.file = path;
	cx.diags.src = src;
	cx.diags.len = len;
	Module *m = parse_module(&cx, path, src, len);
	Str ptx = {0};
	bool ok = !cx.diags.errors && emit_module(&cx, m, NULL, &ptx);
	CHECK(ok, "%s emits", path);
	if (!ok) {
		diag_print(&cx.diags, stderr);
		arena_free(cx.arena);
		return;
	}
	/* walk the PTX: entries, local register comments, copy comments, instructions */
	int copies = 0;
	const Kernel *k = NULL;
	const Stmt *cur = NULL;
	int first_word[64] = {0};
	static Ins ins[64];
	int nins = 0, nk = -1;
	bool shl21 = false;
	char *save = NULL;
	for (char *line = strtok_r(ptx.s, "\n", &save);; line = strtok_r(NULL, "\n", &save)) {
		bool flush = !line || strstr(line, "// line ") || strstr(line, ".visible .entry");
		if (flush && cur && nins) {
			const Buffer *lb = cur->dst->buf->mem == MEM_LOCAL ? cur->dst->buf : cur->src->buf;
			size_t bi = 0;
			while (k->bufs[bi] != lb)
				bi++;
			CHECK(shl21, "warp lane quarter (shl by 21) before line %d", cur->loc.line);
			check_copy(&cx, k, cur, ins, nins, first_word[bi], k->name);
			copies++;
		}
		if (flush) {
			cur = NULL;
			nins = 0;
			shl21 = false;
		}
		if (!line)
			break;
		if (strstr(line, ".visible .entry")) {
			k = m->kernels[++nk];
			continue;
		}
		char name[64];
		int from;
		if (sscanf(line, " // local %63[^:]: %*d registers from %%r%d", name, &from) == 2) {
			for (size_t i = 0; i < k->nbufs; i++)
				if (!strcmp(k->bufs[i]->name, name))
					first_word[i] = from;
			continue;
		}
		const char *lc = strstr(line, "// line ");
		if (lc) {
			int ln = atoi(lc + 8);
			for (size_t i = 0; i < k->nbody; i++)
				if (k->body[i]->loc.line == ln && k->body[i]->kind == ST_COPY_ASYNC)
					cur = k->body[i];
			continue;
		}
		if (strstr(line, "shl.b32") && strstr(line, ", 21;"))
			shl21 = true;
		if (cur && nins < 64 && parse_ins(line, &ins[nins]))
			nins++;
	}
	CHECK(copies > 0, "%s: no tcgen05 copies found", path);
	printf("  %s: %d tcgen05 copies mapped\n", path, copies);
	str_free(&ptx);
	arena_free(cx.arena);
}

int main(void)
{
	check_file("tests/explain/tcgen05_grid.tile");
	check_file("examples/tcgen05_128x8.tile");
	check_file("tests/explain/tcgen05_pack.tile");
	check_file("tests/explain/tcgen05_16x32bx2.tile");
	UNIT_END();
}
