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

/* run kernel k (entry lines [b, e) of the PTX; .funcs anywhere in lines[0..nl)) and
 * compare with the reference, or with a dense GEMM (gemm = "C=A*B") */
static int run_kernel(Ctx *cx, const Kernel *k, char **lines, int nl, int b, int e, int64_t max_threads,
                      const char *gemm, bool banks)
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
	int launch_maxnreg = 0;
	for (int i = b; i < e && !strchr(lines[i], '{'); i++) {
		sscanf(lines[i], " .maxnreg %d", &launch_maxnreg);
		char *name = malloc(strlen(lines[i]) + 1); /* names of any length */
		/* a scalar param is KERNEL_arg_NAME, of any integer type: .u64 (and
		 * .s64) ones too, so it is matched before the .u64 pointer params */
		int sj = -1;
		if (sscanf(lines[i], " .param .%*[us]%*d %[A-Za-z0-9_]", name) == 1) {
			size_t kl = strlen(k->name);
			for (size_t j = 0; j < k->nscalars && sj < 0; j++)
				if (!strncmp(name, k->name, kl) && !strncmp(name + kl, "_arg_", 5) &&
				    !strcmp(name + kl + 5, k->scalars[j].name))
					sj = (int)j;
		}
		if (sj >= 0) {
			p.scalars = realloc(p.scalars, sizeof(char *) * (size_t)(p.nscalars + 1));
			p.scalar_val = realloc(p.scalar_val, sizeof(int64_t) * (size_t)(p.nscalars + 1));
			p.scalars[p.nscalars] = strdup(name);
			p.scalar_val[p.nscalars++] = k->bound_vals ? k->bound_vals[sj] : 0;
		} else if (sscanf(lines[i], " .param .u64 %[A-Za-z0-9_]", name) == 1) {
			p.params = realloc(p.params, sizeof(char *) * (size_t)(p.nparams + 1));
			p.params[p.nparams++] = strdup(name);
		} else if (sscanf(lines[i], " .param .align 64 .b8 %[A-Za-z0-9_][128]", name) == 1) {
			p.tmaps = realloc(p.tmaps, sizeof(char *) * (size_t)(p.ntmaps + 1));
			p.tmaps[p.ntmaps++] = strdup(name);
		}
		free(name);
	}
	parse_entry(&p, lines + b, e - b);
	if (k->dyn_shared) { /* .extern .shared tilepx_dyn[] (module scope): the kernel's dynamic size */
		p.shared_bytes = (p.shared_bytes + 1023) / 1024 * 1024;
		p.syms = realloc(p.syms, sizeof(char *) * (size_t)(p.nsyms + 1));
		p.sym_off = realloc(p.sym_off, sizeof(int64_t) * (size_t)(p.nsyms + 1));
		p.syms[p.nsyms] = strdup("tilepx_dyn");
		p.sym_off[p.nsyms++] = p.shared_bytes;
		p.scap = p.nsyms;
		p.shared_bytes += k->dyn_shared;
	}
	load_funcs(&p, lines, nl);
	collect_regs(&p);
	Machine m = {0};
	m.p = &p;
	m.threads = k->threads;
	m.cx = k->cluster_x ? k->cluster_x : 1;
	int64_t cy = k->cluster_x ? k->cluster_y : 1;
	m.nranks = (int)(m.cx * cy);
	m.win = (p.shared_bytes + 1023) / 1024 * 1024 + 1024; /* swizzle bits stay those of the CTA's address */
	int64_t NT = k->threads * m.nranks;
	unsigned char **got = rp.got;
	size_t *bytes = rp.bytes;
	m.param_mem = got;
	m.param_bytes = bytes;
	m.shared_all = calloc((size_t)(m.win * m.nranks) + 1, 1);
	m.tmem_all = calloc(128 * TMEM_COLS * (size_t)m.nranks, sizeof(uint32_t));
	m.t = calloc((size_t)NT, sizeof(Thread));
	m.cpa_groups = calloc((size_t)NT, sizeof(int64_t));
	m.shadow_all = calloc((size_t)(m.win * m.nranks) + 1, sizeof *m.shadow_all);
	set_cta(&m, 0);
	m.banks = banks;
	if (banks)
		m.occ = calloc((size_t)NT * (size_t)(p.n + 1), sizeof(int64_t));
	TensorMapArgs maps[16];
	m.tma = tma_new();
	m.env = (TmaEnv){m.shared_all, m.win * m.nranks, got, bytes, maps, kernel_tensor_maps(k, maps, 16), rp.n,
	                 m.win, m.nranks, p.shared_bytes};
	for (int64_t i = 0; i < NT; i++) {
		m.t[i].r = calloc((size_t)p.nregs + 1, sizeof(uint64_t));
		m.t[i].pmem = calloc((size_t)p.pbytes + 16, 1);
		m.t[i].wg_busy = calloc((size_t)p.nregs + 1, 1);
	}
	m.wg_rd = calloc((size_t)(m.win * m.nranks / 16 + 1), sizeof(uint16_t));
	m.sync = sync_new(m.nranks, (int)((k->threads + 31) / 32));
	m.maxnreg = calloc((size_t)m.nranks * 8, sizeof(int));
	m.maxnreg_line = calloc((size_t)m.nranks * 8, sizeof(int));
	m.launch_maxnreg = launch_maxnreg;
	m.k = k;
	if (k->threads > 32 * SYNC_MAXWARPS)
		m.err = "more than 1024 threads per CTA";
	int status = 0;
	for (m.base_y = 0; m.base_y < k->grid_y && !m.err; m.base_y += cy)
		for (m.base_x = 0; m.base_x < k->grid && !m.err; m.base_x += m.cx)
			run_cluster(&m, 0);
	if (banks && !m.err)
		bank_report(&m, k);
	free(m.bacc);
	free(m.occ);
	if (m.err) {
		/* one line per problem (a hang names every instruction threads wait at) */
		for (const char *l = m.err; *l;) {
			int n = (int)strcspn(l, "\n");
			printf("FAIL %s: emulation: %.*s\n", k->name, n, l);
			l += n + (l[n] == '\n');
		}
		status = 1;
	} else {
		const char *why = rc_expect(cx, k, gemm, &rp, NULL, NULL);
		int64_t bad = why ? 0 : rc_compare(&rp, 0);
		if (why)
			printf("FAIL %s: %s\n", k->name, why);
		else if (bad) {
			printf("FAIL %s: %lld elements differ\n", k->name, (long long)bad);
			rc_compare(&rp, 4);
		} else
			printf("PASS %s\n", k->name);
		status = why || bad;
	}
	for (int64_t i = 0; i < NT; i++) {
		free(m.t[i].r);
		free(m.t[i].pmem);
		free(m.t[i].wg_busy);
	}
	free(m.t);
	free(m.cpa);
	free(m.cpa_groups);
	free(m.shadow_all);
	free(m.wg_rd);
	for (int i = 0; i < m.nwgq; i++)
		free(m.wgq[i].slots);
	free(m.wgq);
	tma_free(m.tma);
	sync_free(m.sync);
	free(m.maxnreg);
	free(m.maxnreg_line);
	free(m.shared_all);
	free(m.tmem_all);
	rc_params_free(&rp);
	free_prog(&p);
	return status;
}

int main(int argc, char **argv)
{
	int64_t max_threads = 1 << 16;
	int first = 1;
	bool banks = false;
	char **sets = malloc(sizeof(char *) * (size_t)argc); /* at most one per argument */
	int nsets = 0;
	for (;;) {
		if (argc > first && (!strcmp(argv[first], "--set") || !strcmp(argv[first], "--max-threads")) &&
		    argc == first + 1) {
			fprintf(stderr, "ptxemu: %s needs a value\n", argv[first]);
			free(sets);
			return 2;
		}
		if (argc > first + 1 && !strcmp(argv[first], "--set")) {
			sets[nsets++] = argv[first + 1]; /* NAME=V: a scalar param's value */
			char why[300];
			if (!kernel_sets_check((const char *const *)sets, nsets, why, sizeof why)) { /* never guessed */
				fprintf(stderr, "ptxemu: --set: %s\n", why);
				free(sets);
				return 2;
			}
			first += 2;
			continue;
		}
		if (argc > first + 1 && !strcmp(argv[first], "--max-threads")) {
			char *end;
			errno = 0;
			max_threads = strtoll(argv[first + 1], &end, 10);
			if (end == argv[first + 1] || *end || errno || max_threads < 1) {
				fprintf(stderr, "ptxemu: --max-threads: '%s' is not a positive integer\n", argv[first + 1]);
				free(sets);
				return 2;
			}
			first += 2;
		} else if (argc > first && !strcmp(argv[first], "--banks")) {
			banks = true; /* shared-memory wavefronts per .tile line (docs/benchmarks.md) */
			first++;
		} else {
			break;
		}
	}
	if (first >= argc || !strcmp(argv[first], "--help") || !strcmp(argv[first], "-h")) {
		fprintf(stderr, "usage: ptxemu [--max-threads N] [--banks] [--set NAME=V]... FILE.tile...\n");
		free(sets);
		return first >= argc ? 2 : 0;
	}
	int status = 0;
	for (int f = first; f < argc; f++) {
		size_t len = 0;
		char *src = rc_slurp(argv[f], &len);
		if (!src) {
			fprintf(stderr, "ptxemu: cannot read %s\n", argv[f]);
			status = 1;
			continue;
		}
		Ctx cx = {0};
		cx.arena = arena_new();
		cx.diags.file = argv[f];
		cx.diags.src = src;
		cx.diags.len = len;
		Module *mod = parse_module(&cx, argv[f], src, len);
		Str ptx = {0};
		if (!cx.diags.errors)
			rc_warn_unused_sets(mod, sets, nsets, "ptxemu", argv[f]);
		if (cx.diags.errors || !emit_module(&cx, mod, NULL, &ptx)) {
			printf("FAIL %s: does not compile\n", argv[f]);
			status = 1;
			arena_free(cx.arena);
			free(src);
			continue;
		}
		/* '# harness: --link FILE.ptx --gemm C=A*B' in the program: link a
		 * hand-written module, check against a dense GEMM */
		char link[512] = "", gemm[128] = "";
		const char *hl = strstr(src, "\n# harness:");
		if (hl) {
			char opt[1024];
			snprintf(opt, sizeof opt, "%.*s", (int)strcspn(hl + 12, "\n"), hl + 12);
			for (char *tok = strtok(opt, " "); tok; tok = strtok(NULL, " ")) {
				if (!strcmp(tok, "--link") && (tok = strtok(NULL, " ")))
					snprintf(link, sizeof link, "%s", tok);
				else if (!strcmp(tok, "--gemm") && (tok = strtok(NULL, " ")))
					snprintf(gemm, sizeof gemm, "%s", tok);
			}
		}
		Str text = {0};
		str_puts(&text, ptx.s);
		if (link[0]) {
			FILE *lf = fopen(link, "rb");
			if (!lf) {
				printf("FAIL %s: cannot read the linked module %s\n", argv[f], link);
				status = 1;
			} else {
				char chunk[4096];
				size_t got;
				while ((got = fread(chunk, 1, sizeof chunk - 1, lf)) > 0) {
					chunk[got] = 0;
					str_puts(&text, chunk);
				}
				fclose(lf);
			}
		}
		/* split into lines; each kernel's entry is found by name */
		int nl = 0, cap = 1024;
		char **lines = malloc(sizeof(char *) * (size_t)cap);
		for (char *s = text.s, *e; s && *s; s = e ? e + 1 : NULL) {
			e = strchr(s, '\n');
			if (e)
				*e = 0;
			if (nl == cap)
				lines = realloc(lines, sizeof(char *) * (size_t)(cap *= 2));
			lines[nl++] = s;
		}
		for (size_t ki = 0; ki < mod->nkernels; ki++) {
			Kernel *k = mod->kernels[ki];
			if (k->is_func)
				continue;
			char why[256];
			if (!rc_bind(k, sets, nsets, src, why, sizeof why)) {
				printf("FAIL %s: %s\n", k->name, why);
				status = 1;
				continue;
			}
			Str want_hdr = {0}; /* names of any length */
			str_printf(&want_hdr, ".visible .entry %s(", k->name);
			int start = -1;
			for (int i = 0; i < nl && start < 0; i++)
				if (strstr(lines[i], want_hdr.s))
					start = i;
			str_free(&want_hdr);
			if (start < 0) {
				printf("%s %s (%s)\n", k->is_extern ? "SKIP" : "FAIL", k->name,
				       k->is_extern ? "extern: no linked module defines it" : "no entry in the PTX");
				status |= !k->is_extern;
				continue;
			}
			if (k->is_extern && !gemm[0]) {
				printf("FAIL %s: an extern kernel has no reference meaning; check it with --gemm\n", k->name);
				status = 1;
				continue;
			}
			status |= run_kernel(&cx, k, lines, nl, start, unit_end(lines, start, nl), max_threads,
			                     gemm[0] ? gemm : NULL, banks);
			fflush(stdout); /* each verdict out before the next kernel runs (a crash keeps the earlier ones) */
			free((void *)k->bound_vals);
			k->bound_vals = NULL;
		}
		free(lines);
		str_free(&text);
		str_free(&ptx);
		arena_free(cx.arena);
		free(src);
	}
	free(sets);
	return status;
}
