/* ptxemu FILE.tile...: run the PTX that tilepx emits on the CPU and compare
 * every param byte with the CPU reference, as tilepx-run does on a GPU.
 *
 * It interprets the subset of PTX tilepx prints (the forms of ptx_templates/)
 * thread by thread, with warp-collective instructions (ldmatrix, stmatrix,
 * tcgen05.ld/st/alloc) and barriers executed when every thread of the warp
 * or CTA has reached them. Collective semantics come from the fragment
 * tables of docs/ptx-notes.md(m8n8 verified on an H100; tcgen05 from
 * CUTLASS), not from tilepx's emitters, so this checks tcgen05 code without a
 * Blackwell GPU and every variant without any GPU. Programs whose
 * grid x threads exceeds --max-threads are skipped. */
#define _POSIX_C_SOURCE 200809L
#include "ptxemu_machine.h"
#include <getopt.h>

/* what ptxemu runs with: its options, and the current program's PTX text
 * (with the module its '# harness: --link' line names) cut into lines */
typedef struct Emu {
	int64_t max_threads;
	bool banks;
	bool attention; /* '# harness: --attention': O and LSE against attention in double too */
	bool lineinfo; /* --lineinfo */
	char link[512], gemm[128];
	Str text;
	char **lines;
	int nl;
} Emu;

/* kernel k's program: the names of its params from its ABI (pointers,
 * scalars with their bound values, tensor maps), the entry's body (lines
 * [b, e)), its dynamic shared array and every .func of the module */
static void load_prog(Prog *p, const Kernel *k, const KernelAbi *abi, char **lines, int nl, int b, int e)
{
	for (int i = 0; i < abi->nparams; i++) {
		const AbiParam *a = &abi->params[i];
		if (a->kind == ABI_POINTER) { /* param_index order: val() of the name is its index */
			p->params = realloc(p->params, sizeof(char *) * (size_t)(p->nparams + 1));
			p->params[p->nparams++] = strdup(a->name);
		} else if (a->kind == ABI_SCALAR) {
			p->scalars = realloc(p->scalars, sizeof(char *) * (size_t)(p->nscalars + 1));
			p->scalar_val = realloc(p->scalar_val, sizeof(int64_t) * (size_t)(p->nscalars + 1));
			p->scalars[p->nscalars] = strdup(a->name);
			p->scalar_val[p->nscalars++] = k->bound_vals ? k->bound_vals[a->index] : 0;
		} else { /* tma_index order: the TmaEnv's maps */
			p->tmaps = realloc(p->tmaps, sizeof(char *) * (size_t)(p->ntmaps + 1));
			p->tmaps[p->ntmaps++] = strdup(a->name);
		}
	}
	parse_entry(p, lines + b, e - b);
	if (abi->dyn_shared) { /* .extern .shared tilepx$dyn[] (module scope): the kernel's dynamic size */
		p->shared_bytes = (p->shared_bytes + 1023) / 1024 * 1024;
		p->syms = realloc(p->syms, sizeof(char *) * (size_t)(p->nsyms + 1));
		p->sym_off = realloc(p->sym_off, sizeof(int64_t) * (size_t)(p->nsyms + 1));
		p->syms[p->nsyms] = strdup("tilepx$dyn");
		p->sym_off[p->nsyms++] = p->shared_bytes;
		p->scap = p->nsyms;
		p->shared_bytes += abi->dyn_shared;
	}
	load_funcs(p, lines, nl);
	collect_regs(p);
	decode_prog(p);
}

/* a machine for kernel k's clusters, its global memory the params of rp */
static void machine_init(Machine *m, Prog *p, const Ctx *cx, const Kernel *k, const KernelAbi *abi, RunParams *rp,
                         TensorMapArgs *maps, bool banks)
{
	memset(m, 0, sizeof *m);
	m->p = p;
	m->threads = abi->threads;
	m->cx = abi->cluster_x ? abi->cluster_x : 1;
	int64_t cy = abi->cluster_x ? abi->cluster_y : 1;
	m->nranks = (int)(m->cx * cy);
	m->win = (p->shared_bytes + 1023) / 1024 * 1024 + 1024; /* swizzle bits stay those of the CTA's address */
	int64_t NT = abi->threads * m->nranks;
	m->param_mem = rp->got;
	m->param_bytes = rp->bytes;
	m->shared_all = calloc((size_t)(m->win * m->nranks) + 1, 1);
	m->tmem_all = calloc(128 * TMEM_COLS * (size_t)m->nranks, sizeof(uint32_t));
	m->t = calloc((size_t)NT, sizeof(Thread));
	m->cpa_groups = calloc((size_t)NT, sizeof(int64_t));
	m->shadow_all = calloc((size_t)(m->win * m->nranks) + 1, sizeof *m->shadow_all);
	m->cpa_cover = calloc((size_t)(m->win * m->nranks) / 16 + 1, sizeof *m->cpa_cover);
	m->shadow_epoch = calloc((size_t)(m->win * m->nranks) / SHADOW_CHUNK + 1, sizeof *m->shadow_epoch);
	if (has_async_reader(p))
		m->proxy_all = calloc((size_t)(m->win * m->nranks) + 1, sizeof *m->proxy_all);
	set_cta(m, 0);
	m->banks = banks;
	if (banks)
		m->occ = calloc((size_t)NT * (size_t)(p->n + 1), sizeof(int64_t));
	m->tma = tma_new();
	m->env = (TmaEnv){m->shared_all, m->win * m->nranks, rp->got, rp->bytes, maps, kernel_tensor_maps(cx, k, maps, 16), rp->n,
	                  m->win, m->nranks, p->shared_bytes};
	for (int64_t i = 0; i < NT; i++) {
		m->t[i].r = calloc((size_t)p->nregs + 1, sizeof(uint64_t));
		m->t[i].pmem = calloc((size_t)p->pbytes + 16, 1);
		m->t[i].wg_busy = calloc((size_t)p->nregs + 1, 1);
		m->t[i].wg_seen = calloc((size_t)p->nregs + 1, sizeof(int));
	}
	m->wg_rd = calloc((size_t)(m->win * m->nranks / 16 + 1), sizeof(uint16_t));
	m->sync = sync_new(m->nranks, (int)((abi->threads + 31) / 32));
	m->maxnreg = calloc((size_t)m->nranks * 8, sizeof(int));
	m->maxnreg_line = calloc((size_t)m->nranks * 8, sizeof(int));
	m->launch_maxnreg = (int)abi->maxnreg;
	m->k = k;
	if (abi->threads > 32 * SYNC_MAXWARPS)
		m->err = "more than 1024 threads per CTA";
	const char *u = undeclared_reg(p);
	if (u && !m->err) {
		snprintf(m->errbuf, sizeof m->errbuf, "register %s is used but never declared (.reg)", u);
		m->err = m->errbuf;
	}
}

static void machine_free(Machine *m)
{
	int64_t NT = m->threads * m->nranks;
	free(m->bacc);
	free(m->occ);
	red_free(m);
	for (int64_t i = 0; i < NT; i++) {
		free(m->t[i].r);
		free(m->t[i].pmem);
		free(m->t[i].wg_busy);
		free(m->t[i].wg_seen);
	}
	free(m->t);
	free(m->cpa);
	free(m->cpa_groups);
	free(m->shadow_all);
	free(m->shadow_epoch);
	free(m->proxy_all);
	free(m->cpa_cover);
	free(m->wg_rd);
	for (int i = 0; i < m->nwgq; i++)
		free(m->wgq[i].slots);
	free(m->wgq);
	tma_free(m->tma);
	sync_free(m->sync);
	free(m->maxnreg);
	free(m->maxnreg_line);
	free(m->shared_all);
	free(m->tmem_all);
}

/* the verdict: an emulation error (one line per problem: a hang names every
 * instruction threads wait at), else the params against what they must hold */
static int report(Ctx *cx, const Kernel *k, const Machine *m, const char *gemm, bool attention, RunParams *rp)
{
	if (m->err) {
		for (const char *l = m->err; *l;) {
			int n = (int)strcspn(l, "\n");
			printf("FAIL %s: emulation: %.*s\n", k->name, n, l);
			l += n + (l[n] == '\n');
		}
		return 1;
	}
	const char *why = rc_expect(cx, k, gemm, rp, NULL, NULL);
	int64_t bad = why ? 0 : rc_compare(rp, 0);
	if (why)
		printf("FAIL %s: %s\n", k->name, why);
	else if (bad) {
		printf("FAIL %s: %lld elements differ\n", k->name, (long long)bad);
		rc_compare(rp, 4);
	} else if (attention && (why = rc_attention_check(k, rp, 0, &bad)) != NULL)
		printf("FAIL %s: %s\n", k->name, why);
	else if (bad) {
		printf("FAIL %s: %lld elements of O and LSE are not attention's (the program computes something else)\n",
		       k->name, (long long)bad);
		rc_attention_check(k, rp, 4, &bad);
	} else
		printf("PASS %s\n", k->name);
	return why || bad;
}

/* run kernel k (entry lines [b, e) of the PTX; .funcs anywhere in lines[0..nl)) and
 * compare with the reference, or with a dense GEMM (gemm = "C=A*B") */
static int run_kernel(Ctx *cx, const Kernel *k, const KernelAbi *abi, char **lines, int nl, int b, int e,
                      int64_t max_threads, const char *gemm, bool attention, bool banks)
{
	if (k->grid * k->grid_y * k->threads > max_threads) {
		printf("SKIP %s (%lld threads in all; limit %lld)\n", k->name, (long long)(k->grid * k->grid_y * k->threads),
		       (long long)max_threads);
		return 0;
	}
	RunParams rp;
	char why[300];
	if (!rc_params_init(k, &rp, why, sizeof why)) {
		printf("FAIL %s: %s\n", k->name, why);
		return 1;
	}
	Prog p = {0};
	load_prog(&p, k, abi, lines, nl, b, e);
	Machine m;
	TensorMapArgs maps[16];
	machine_init(&m, &p, cx, k, abi, &rp, maps, banks);
	int64_t cy = abi->cluster_x ? abi->cluster_y : 1;
	for (m.base_y = 0; m.base_y < k->grid_y && !m.err; m.base_y += cy)
		for (m.base_x = 0; m.base_x < k->grid && !m.err; m.base_x += m.cx)
			run_cluster(&m, 0);
	if (banks && !m.err)
		bank_report(&m, k);
	int status = report(cx, k, &m, gemm, attention, &rp);
	machine_free(&m);
	rc_params_free(&rp);
	free_prog(&p);
	return status;
}

/* a program compiled: its '# harness: --link FILE.ptx --gemm C=A*B' line (link
 * a hand-written module, check against a dense GEMM), its text cut into lines */
static bool emu_file_begin(void *ctx, RcFile *f, int *status)
{
	Emu *emu = ctx;
	emu->link[0] = emu->gemm[0] = 0;
	emu->attention = false;
	const char *hl = strstr(f->src, "\n# harness:");
	if (hl) {
		char opt[1024];
		snprintf(opt, sizeof opt, "%.*s", (int)strcspn(hl + 12, "\n"), hl + 12);
		for (char *tok = strtok(opt, " "); tok; tok = strtok(NULL, " ")) {
			if (!strcmp(tok, "--link") && (tok = strtok(NULL, " ")))
				snprintf(emu->link, sizeof emu->link, "%s", tok);
			else if (!strcmp(tok, "--gemm") && (tok = strtok(NULL, " ")))
				snprintf(emu->gemm, sizeof emu->gemm, "%s", tok);
			else if (!strcmp(tok, "--attention"))
				emu->attention = true;
		}
	}
	emu->text = (Str){0};
	str_puts(&emu->text, f->ptx.s);
	if (emu->link[0]) {
		FILE *lf = fopen(emu->link, "rb");
		if (!lf) {
			printf("FAIL %s: cannot read the linked module %s\n", f->path, emu->link);
			*status = 1;
		} else {
			char chunk[4096];
			size_t got;
			while ((got = fread(chunk, 1, sizeof chunk - 1, lf)) > 0) {
				chunk[got] = 0;
				str_puts(&emu->text, chunk);
			}
			fclose(lf);
		}
	}
	/* a copy cut into lines; each kernel's entry is found by name */
	int cap = 1024;
	emu->nl = 0;
	emu->lines = malloc(sizeof(char *) * (size_t)cap);
	char *copy = strdup(emu->text.s ? emu->text.s : "");
	for (char *s = copy, *e; s && *s; s = e ? e + 1 : NULL) {
		e = strchr(s, '\n');
		if (e)
			*e = 0;
		if (emu->nl == cap)
			emu->lines = realloc(emu->lines, sizeof(char *) * (size_t)(cap *= 2));
		emu->lines[emu->nl++] = s;
	}
	if (!emu->nl)
		free(copy);
	return true;
}

static void emu_file_end(void *ctx, RcFile *f)
{
	(void)f;
	Emu *emu = ctx;
	if (emu->nl)
		free(emu->lines[0]);
	free(emu->lines);
	str_free(&emu->text);
}

/* its entry, checked against its ABI, then run */
static int emu_kernel_run(void *ctx, RcFile *f, Kernel *k, const KernelAbi *abi)
{
	Emu *emu = ctx;
	char why[512];
	int agree = rc_abi_check(abi, emu->text.s ? emu->text.s : "", why, sizeof why);
	if (agree < 0) {
		printf("%s %s (%s)\n", k->is_extern ? "SKIP" : "FAIL", k->name,
		       k->is_extern ? "extern: no linked module defines it" : "no entry in the PTX");
		return !k->is_extern;
	}
	if (k->is_extern && !emu->gemm[0]) {
		printf("FAIL %s: an extern kernel has no reference meaning; check it with --gemm\n", k->name);
		return 1;
	}
	if (!agree) {
		printf("FAIL %s: the entry disagrees with the kernel's launch ABI: %s\n", k->name, why);
		return 1;
	}
	Str want_hdr = {0}; /* names of any length */
	str_printf(&want_hdr, ".visible .entry %s(", k->name);
	int start = -1;
	for (int i = 0; i < emu->nl && start < 0; i++)
		if (strstr(emu->lines[i], want_hdr.s))
			start = i;
	str_free(&want_hdr);
	return run_kernel(&f->cx, k, abi, emu->lines, emu->nl, start, unit_end(emu->lines, start, emu->nl),
	                  emu->max_threads, emu->gemm[0] ? emu->gemm : NULL, emu->attention, emu->banks);
}

static const char *usage =
	"usage: ptxemu [--max-threads N] [--banks] [--lineinfo] [--set NAME=V]... FILE.tile...\n"
	"       ptxemu --batch < LINES (each line one invocation's arguments, split as a shell would:\n"
	"       'a b' and \"a b\" keep blanks, a backslash keeps the next character)\n"
	"       ptxemu --help | --version\n"
	"Options may come anywhere among the files; FILE '-' reads standard input.\n"
	"--lineinfo compiles with tilepx -lineinfo's .file/.loc lines (reports name their .tile lines).\n";

/* one value option of the command line; false after a usage error */
static bool value_option(int c, const char *arg, Emu *emu, char **sets, int *nsets)
{
	if (c == 's') {
		sets[(*nsets)++] = (char *)arg; /* NAME=V: a scalar param's value */
		char why[300];
		if (!kernel_sets_check((const char *const *)sets, *nsets, why, sizeof why)) { /* never guessed */
			fprintf(stderr, "ptxemu: --set: %s\n", why);
			return false;
		}
		return true;
	}
	char *end;
	errno = 0;
	emu->max_threads = strtoll(arg, &end, 10);
	if (end == arg || *end || errno || emu->max_threads < 1) {
		fprintf(stderr, "ptxemu: --max-threads: '%s' is not a positive integer\n", arg);
		return false;
	}
	return true;
}

/* the options, anywhere among the files (getopt_long permutes them to the
 * front): index of the first file; -1 after a usage error (exit 2), -2 when
 * --help or --version answered (exit 0) */
static int parse_options(int argc, char **argv, Emu *emu, char **sets, int *nsets)
{
	static const struct option opts[] = {
		{"set", required_argument, 0, 's'}, {"max-threads", required_argument, 0, 'm'},
		{"banks", no_argument, 0, 'b'},     {"help", no_argument, 0, 'h'},
		{"version", no_argument, 0, 'V'},   {"lineinfo", no_argument, 0, 'l'},
		{0, 0, 0, 0},
	};
	optind = 0; /* 0, not 1: getopt starts afresh (--batch parses many argument lists) */
	opterr = 0; /* the messages are ptxemu's own */
	for (int c; (c = getopt_long(argc, argv, ":hV", opts, NULL)) != -1;) {
		if (c == 'b') {
			emu->banks = true; /* shared-memory wavefronts per .tile line (docs/benchmarks.md) */
		} else if (c == 'l') {
			emu->lineinfo = true; /* .loc lines name the .tile line of what runs (reports) */
		} else if (c == 's' || c == 'm') {
			if (!value_option(c, optarg, emu, sets, nsets))
				return -1;
		} else if (c == 'h') {
			fputs(usage, stdout);
			return -2;
		} else if (c == 'V') {
			printf("ptxemu (tilepx) %s\n", TILEPX_VERSION_STRING);
			return -2;
		} else {
			if (c == ':')
				fprintf(stderr, "ptxemu: %s needs a value\n", argv[optind - 1]);
			else
				fprintf(stderr, "ptxemu: unknown option %s\n%s", argv[optind - 1], usage);
			return -1;
		}
	}
	return optind;
}

/* one invocation: the options, then the files (cache: --batch's last compiled program, or NULL) */
static int emu_run(RcCache *cache, int argc, char **argv)
{
	Emu emu = {.max_threads = 1 << 16};
	char **sets = malloc(sizeof(char *) * (size_t)argc); /* at most one per argument */
	int nsets = 0;
	int first = parse_options(argc, argv, &emu, sets, &nsets);
	if (first < 0 || first >= argc) {
		if (first >= argc)
			fprintf(stderr, "ptxemu: no input file\n%s", usage);
		free(sets);
		return first == -2 ? 0 : 2;
	}
	RcRunner r = {.tool = "ptxemu", .sets = sets, .nsets = nsets, .ctx = &emu, .file_begin = emu_file_begin,
	              .kernel_run = emu_kernel_run, .file_end = emu_file_end, .lineinfo = emu.lineinfo, .cache = cache};
	int status = 0;
	for (int f = first; f < argc; f++)
		status |= rc_run_file(&r, argv[f]);
	free(sets);
	return status;
}

static int emu_batch_line(void *cache, int argc, char **argv) { return emu_run(cache, argc, argv); }

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "--batch")) {
		RcCache cache = {0};
		int status = batch_loop_ctx("ptxemu", emu_batch_line, &cache);
		rc_cache_free(&cache);
		return status;
	}
	return emu_run(NULL, argc, argv);
}
