/* tilepx-run: run emitted PTX on a GPU through the CUDA driver API and check
 * every byte of every param buffer against the CPU reference (src/ref/).
 *
 *   tilepx-run [--bench N] [--ptx FILE.ptx] [--link FILE.ptx] [--gemm C=A*B] [--attention] [--set NAME=V]... FILE.tile...
 *   tilepx-run [--bench N] --gemm-auto M,N,K[,IN:OUT]   the GEMM family's pick (tilepx_gemm_choose)
 *
 * One line per kernel: PASS, FAIL (first mismatches) or SKIP (target the GPU
 * cannot run). Exit 1 on any failure, 2 on usage errors. */
#define _POSIX_C_SOURCE 200809L
#include "runcore.h"
#include "../include/tilepx/tilepx.h"

#include <cuda.h>
#include <getopt.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static const char *usage =
	"usage: tilepx-run [--bench N] [--ptx FILE.ptx] [--link FILE.ptx] [--gemm C=A*B] [--attention] [--set NAME=V]...\n"
	"                  [--lineinfo] FILE.tile...\n\n"
	"Emit each .tile program (or load --ptx, emitted from the one FILE.tile), launch every kernel\n"
	"with grid x threads, and compare every param buffer with the CPU reference, bit for bit.\n"
	"Inputs hold a deterministic pattern (distinct values per buffer up to the dtype's range).\n"
	"--bench N times N launches after a warm-up and prints microseconds per launch and GB/s.\n"
	"--gemm C=A*B checks param C against a dense host product of params A [M, K] and B [K, N]\n"
	"(f16 or bf16, row-major) instead of running the CPU reference (for sizes the reference\n"
	"cannot run in time), and reports TFLOPS with --bench. 'fill small' inputs make it exact.\n"
	"--attention also checks params O and LSE of an attention kernel against attention computed\n"
	"in double on the host (emu/attention_host.c).\n"
	"--link FILE.ptx links a PTX module (hand-written, calling the program's device functions)\n"
	"with the emitted one through the driver's linker (cuLinkCreate/AddData/Complete); the\n"
	"program's extern kernels are defined there.\n"
	"--set NAME=V gives scalar param NAME the value V (else the program's '# set: NAME=V' line);\n"
	"a value that breaks one of the kernel's facts (assume) is refused and nothing runs.\n"
	"--gemm-auto M,N,K[,IN:OUT] runs the GEMM family's kernel and window that tilepx_gemm_choose\n"
	"picks for that size (IN:OUT f16:f32 by default) on this GPU's SMs, against the CPU reference;\n"
	"from the repository's root, without FILE.tile.\n"
	"--lineinfo emits with tilepx -lineinfo and has the JIT keep the line table\n"
	"(CU_JIT_GENERATE_LINE_INFO), so that ncu --import-source yes shows .tile lines.\n";

static const char *link_path;
static bool lineinfo; /* --lineinfo: .file/.loc in the module, line tables in the JIT's cubin (Nsight Compute) */

/* --attention: O and LSE against attention computed in double too */
static bool attention_check;

/* --gemm C=A*B, as given */
static const char *gemm_spec;

/* --set NAME=V, as given (at most one per argument), then --gemm-auto's M, N, K, P and Q */
static char **sets;
static int nsets;

/* --gemm-auto M,N,K[,IN:OUT], as given */
static const char *gemm_auto;

/* --gemm-auto: the family's pick on dev's SMs; its M, N, K, P, Q appended to sets (room for 5 made in main) */
static const char *gemm_auto_pick(CUdevice dev)
{
	static char buf[5][48];
	long long m, n, k;
	char in[8] = "f16", out[8] = "f32";
	int got = sscanf(gemm_auto, "%lld,%lld,%lld,%7[a-z0-9]:%7[a-z0-9]", &m, &n, &k, in, out);
	int sms = 0;
	tilepx_gemm_choice c;
	if ((got != 3 && got != 5) || cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev)) {
		fprintf(stderr, "tilepx-run: --gemm-auto takes M,N,K or M,N,K,IN:OUT, not '%s'\n", gemm_auto);
		return NULL;
	}
	if (tilepx_gemm_choose(m, n, k, in, out, sms, &c)) {
		fprintf(stderr, "tilepx-run: --gemm-auto: %s\n", c.why);
		return NULL;
	}
	printf("gemm-auto: %lldx%lldx%lld %s->%s on %d SMs: %s; %s%s\n", m, n, k, in, out, sms, c.tile, c.why,
	       c.zero_c ? " (it adds A B into C: checked against the reference's C += A B from the same C)" : "");
	long long v[5] = {m, n, k, c.p, c.q};
	for (int i = 0; i < (c.linear ? 4 : 5); i++) { /* a linear walk takes no Q */
		snprintf(buf[i], sizeof buf[i], "%c=%lld", "MNKPQ"[i], v[i]);
		sets[nsets++] = buf[i];
	}
	return c.tile;
}

#define CU(call)                                                                                 \
	do {                                                                                     \
		CUresult r_ = (call);                                                            \
		if (r_ != CUDA_SUCCESS) {                                                        \
			const char *s_ = NULL;                                                   \
			cuGetErrorString(r_, &s_);                                               \
			fprintf(stderr, "tilepx-run: %s failed: %s\n", #call, s_ ? s_ : "?");  \
			return false;                                                            \
		}                                                                                \
	} while (0)


/* a failed launch-layer call: its reason on a FAIL line */
#define LAUNCH(k, call)                                                                          \
	do {                                                                                     \
		char why_[600];                                                                  \
		if (!(call)) {                                                                   \
			printf("FAIL %s: %s\n", (k)->name, why_);                              \
			return false;                                                            \
		}                                                                                \
	} while (0)

/* every param buffer on the device between two guards of RC_GUARD bytes
 * (256: the pointer stays 256-byte aligned), which must be untouched after
 * the kernel; the input pattern copied in */
static bool upload_params(const RunParams *rp, CUdeviceptr *raw, CUdeviceptr *dev)
{
	unsigned char guard[RC_GUARD];
	for (int i = 0; i < rp->n; i++) {
		CU(cuMemAlloc(&raw[i], rp->bytes[i] + 2 * RC_GUARD));
		dev[i] = raw[i] + RC_GUARD;
		for (int side = 0; side < 2; side++) {
			rc_guard_fill(guard, i, side);
			CU(cuMemcpyHtoD(side ? dev[i] + rp->bytes[i] : raw[i], guard, RC_GUARD));
		}
		CU(cuMemcpyHtoD(dev[i], rp->init[i], rp->bytes[i]));
	}
	return true;
}

/* a guard of param i (side 0 before it, 1 after it) that the kernel wrote:
 * where, and every changed byte with its value */
static void report_guard(const Kernel *k, const RunParams *rp, int i, int side, const unsigned char *guard, long at)
{
	printf("FAIL %s: param %s: a guard byte %s was written (%ld bytes %s)\n", k->name, rp->buf[i]->name,
	       side ? "after the buffer" : "before the buffer", side ? at + 1 : RC_GUARD - at,
	       side ? "past its end" : "before its start");
	/* every changed guard byte (offset from the buffer's end, or before its start) and its value */
	printf("  changed guard bytes:");
	for (int g = 0, shown = 0; g < RC_GUARD && shown < 64; g++)
		if (rc_guard_check_at(guard, i, side, g)) {
			printf(" %s%d=0x%02x", side ? "+" : "-", side ? g : RC_GUARD - g, guard[g]);
			shown++;
		}
	printf("\n");
}

/* every param's bytes into rp->got and its guards checked; *guards_ok false
 * (and each written guard reported) if the kernel wrote outside a buffer;
 * false when a driver call fails */
static bool read_back(const Kernel *k, RunParams *rp, const CUdeviceptr *raw, const CUdeviceptr *dev, bool *guards_ok)
{
	unsigned char guard[RC_GUARD];
	for (int i = 0; i < rp->n; i++) {
		CU(cuMemcpyDtoH(rp->got[i], dev[i], rp->bytes[i]));
		for (int side = 0; side < 2; side++) {
			CU(cuMemcpyDtoH(guard, side ? dev[i] + rp->bytes[i] : raw[i], RC_GUARD));
			long at = rc_guard_check(guard, i, side);
			if (at >= 0) {
				report_guard(k, rp, i, side, guard, at);
				*guards_ok = false;
			}
		}
	}
	return true;
}

/* --bench: bench launches after three warm-up ones, timed by events; TFLOPS
 * for a --gemm check (flops > 0), else the bytes the copies move */
static bool bench_kernel(tilepx_cuda *cu, const Kernel *k, CUfunction fn, const tilepx_packed *pk, int bench,
                         int64_t moved, double flops)
{
	CUevent a, b;
	CU(cuEventCreate(&a, 0));
	CU(cuEventCreate(&b, 0));
	for (int w = 0; w < 3; w++)
		LAUNCH(k, tilepx_cuda_launch(cu, fn, pk, NULL, why_, sizeof why_));
	CU(cuEventRecord(a, 0));
	for (int r = 0; r < bench; r++)
		LAUNCH(k, tilepx_cuda_launch(cu, fn, pk, NULL, why_, sizeof why_));
	CU(cuEventRecord(b, 0));
	CU(cuEventSynchronize(b));
	float ms = 0;
	CU(cuEventElapsedTime(&ms, a, b));
	double us = ms * 1000.0 / bench;
	if (flops > 0)
		printf("BENCH %s: %.2f us per launch, %.1f TFLOPS\n", k->name, us, flops / (us * 1e6));
	else
		printf("BENCH %s: %.2f us per launch, %.1f GB/s (%lld bytes moved by copies per launch)\n", k->name, us,
		       (double)moved / (us * 1e3), (long long)moved);
	cuEventDestroy(a);
	cuEventDestroy(b);
	return true;
}

/* the kernel's arguments packed by the library's launch layer (src/api/launch.c)
 * from its launch record: device pointers dev[], its bound scalars, its
 * tensor maps encoded at those pointers (a FAIL line with the encoder's
 * arguments when the driver refuses them) */
static bool pack_args(Ctx *cx, tilepx_cuda *cu, const Kernel *k, const CUdeviceptr *dev, int np, tilepx_packed *pk)
{
	tilepx_launch *rec = calloc(1, sizeof *rec);
	if (!rec)
		return false;
	launch_record(cx, k, rec);
	char why[600];
	bool ok = tilepx_cuda_pack(cu, rec, (const unsigned long long *)dev, np, pk, why, sizeof why);
	if (!ok)
		printf("FAIL %s: %s\n", k->name, why);
	free(rec);
	return ok;
}

static bool run_kernel(Ctx *cx, tilepx_cuda *cu, const Module *m, const Kernel *k, CUmodule mod, int bench,
                       int *status)
{
	RunParams rp;
	char why_alloc[300];
	if (!rc_params_init(k, &rp, why_alloc, sizeof why_alloc)) {
		printf("FAIL %s: %s\n", k->name, why_alloc);
		*status = 1;
		return false;
	}
	int np = rp.n;
	CUdeviceptr *dev = calloc((size_t)np + 1, sizeof *dev);
	tilepx_packed *pk = aligned_alloc(128, sizeof *pk); /* the tensor maps' alignment */
	bool ok = true;
	CUfunction fn;
	CU(cuModuleGetFunction(&fn, mod, k->name));
	CUdeviceptr *raw = calloc((size_t)np + 1, sizeof *raw);
	if (!pk || !upload_params(&rp, raw, dev))
		return false;
	if (!pack_args(cx, cu, k, dev, np, pk)) {
		*status = 1;
		return false;
	}
	LAUNCH(k, tilepx_cuda_launch(cu, fn, pk, NULL, why_, sizeof why_));
	CUresult lr = cuCtxSynchronize();
	if (lr != CUDA_SUCCESS) {
		const char *s = NULL;
		cuGetErrorString(lr, &s);
		printf("FAIL %s: launch: %s\n", k->name, s ? s : "?");
		*status = 1;
		return false;
	}
	if (!read_back(k, &rp, raw, dev, &ok))
		return false;
	if (!ok)
		*status = 1;
	int64_t moved = 0; /* compared even after a guard failure: stray writes inside the buffer show too */
	double flops = 0;
	const char *why = rc_expect(cx, k, gemm_spec, &rp, &moved, &flops);
	if (why) {
		printf("FAIL %s: %s\n", k->name, why);
		*status = 1;
		return false;
	}
	int64_t bad = rc_compare(&rp, 0);
	if (bad) {
		printf("FAIL %s\n", k->name);
		rc_compare(&rp, 8);
		printf("  %lld mismatching elements\n", (long long)bad);
		*status = 1;
		ok = false;
	} else if (attention_check && ((why = rc_attention_check(k, &rp, 0, &bad)) != NULL || bad)) {
		printf("FAIL %s: %s\n", k->name, why ? why : "O and LSE are not attention's");
		if (!why)
			rc_attention_check(k, &rp, 8, &bad);
		*status = 1;
		ok = false;
	} else if (ok) {
		printf("PASS %s (%s, grid %lld x %lld x %lld threads%s)\n", k->name, m->target->name, (long long)k->grid,
		       (long long)k->grid_y, (long long)k->threads, gemm_spec ? ", against a dense host GEMM" : "");
	}
	if (ok && bench > 0 && !bench_kernel(cu, k, fn, pk, bench, moved, flops))
		return false;
	for (int i = 0; i < np; i++)
		cuMemFree(raw[i]);
	free(raw);
	rc_params_free(&rp);
	free(dev);
	free(pk);
	return ok;
}

static int device_sm(CUdevice d)
{
	int maj = 0, min = 0;
	cuDeviceGetAttribute(&maj, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, d);
	cuDeviceGetAttribute(&min, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, d);
	return maj * 10 + min;
}

/* the module from PTX text (path names it in the driver's logs), through
 * the driver's linker with the --link module when given; false (a FAIL line
 * or a message, *status 1) when it does not load */
static bool load_module(const char *path, char *text, CUmodule *mod, int *status)
{
	char info[8192] = "", err[8192] = "";
	CUjit_option opt[] = {CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES, CU_JIT_ERROR_LOG_BUFFER,
	                      CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES, CU_JIT_GENERATE_LINE_INFO};
	void *val[] = {info, (void *)(uintptr_t)sizeof info, err, (void *)(uintptr_t)sizeof err, (void *)(uintptr_t)1};
	unsigned nopt = lineinfo ? 5 : 4;
	CUresult r;
	if (link_path) {
		/* the driver's linker: the emitted module, then the hand-written one */
		size_t ln;
		char *hand = rc_slurp(link_path, &ln);
		CUlinkState ls;
		void *cubin = NULL;
		size_t cubin_size = 0;
		if (!hand) {
			fprintf(stderr, "tilepx-run: cannot read %s\n", link_path);
			*status = 1;
			return false;
		}
		r = cuLinkCreate(nopt, opt, val, &ls);
		if (r == CUDA_SUCCESS)
			r = cuLinkAddData(ls, CU_JIT_INPUT_PTX, text, strlen(text) + 1, path, 0, NULL, NULL);
		if (r == CUDA_SUCCESS)
			r = cuLinkAddData(ls, CU_JIT_INPUT_PTX, hand, ln + 1, link_path, 0, NULL, NULL);
		if (r == CUDA_SUCCESS)
			r = cuLinkComplete(ls, &cubin, &cubin_size);
		if (r == CUDA_SUCCESS)
			r = cuModuleLoadData(mod, cubin);
		cuLinkDestroy(ls);
		free(hand);
	} else {
		r = cuModuleLoadDataEx(mod, text, nopt, opt, val);
	}
	if (r != CUDA_SUCCESS) {
		const char *s = NULL;
		cuGetErrorString(r, &s);
		printf("FAIL %s: JIT: %s\n%s\n%s\n", path, s ? s : "?", err, info);
		*status = 1;
		return false;
	}
	return true;
}

/* what tilepx-run runs with: the GPU, --ptx and --bench, and the current
 * program's loaded module with the PTX text its entries are checked against
 * (the --link module's text after it) */
typedef struct Gpu {
	tilepx_cuda *cu; /* the launch layer's driver */
	CUdevice dev;
	const char *ptx_path;
	int bench;
	CUmodule mod;
	Str text;
} Gpu;

/* a program compiled: run where this GPU can (arch-specific targets sm_XYa/f
 * only on that family, plain ones on anything newer), its module loaded */
static bool gpu_file_begin(void *ctx, RcFile *f, int *status)
{
	Gpu *g = ctx;
	int sm = device_sm(g->dev);
	const Target *t = f->mod->target;
	bool runnable = t->suffix ? (t->sm == sm) : (t->sm <= sm);
	if (!runnable) {
		for (size_t i = 0; i < f->mod->nkernels; i++)
			printf("SKIP %s (target %s; this GPU is sm_%d)\n", f->mod->kernels[i]->name, t->name, sm);
		return false;
	}
	char *text = f->ptx.s;
	size_t n;
	if (g->ptx_path) {
		text = rc_slurp(g->ptx_path, &n);
		if (!text) {
			fprintf(stderr, "tilepx-run: cannot read %s\n", g->ptx_path);
			*status = 1;
			return false;
		}
	}
	bool loaded = load_module(f->path, text, &g->mod, status);
	g->text = (Str){0};
	str_puts(&g->text, text);
	char *hand = loaded && link_path ? rc_slurp(link_path, &n) : NULL;
	if (hand)
		str_puts(&g->text, hand);
	free(hand);
	if (text != f->ptx.s)
		free(text);
	if (!loaded)
		str_free(&g->text);
	return loaded;
}

static void gpu_file_end(void *ctx, RcFile *f)
{
	(void)f;
	Gpu *g = ctx;
	cuModuleUnload(g->mod);
	str_free(&g->text);
}

/* an extern kernel runs only from a --link module, and only against --gemm */
static bool gpu_kernel_admit(void *ctx, RcFile *f, const Kernel *k, int *status)
{
	(void)ctx;
	(void)f;
	if (k->is_extern && !link_path) {
		printf("SKIP %s (extern: its body is in a module to --link)\n", k->name);
		return false;
	}
	if (k->is_extern && !gemm_spec) {
		printf("FAIL %s: an extern kernel has no reference meaning; check it with --gemm\n", k->name);
		*status = 1;
		return false;
	}
	return true;
}

/* the loaded entry against the kernel's ABI, then run and checked */
static int gpu_kernel_run(void *ctx, RcFile *f, Kernel *k, const KernelAbi *abi)
{
	Gpu *g = ctx;
	char why[512];
	int agree = rc_abi_check(abi, g->text.s ? g->text.s : "", why, sizeof why);
	if (agree < 0) {
		printf("FAIL %s (no entry in the PTX)\n", k->name);
		return 1;
	}
	if (!agree) {
		printf("FAIL %s: the entry disagrees with the kernel's launch ABI: %s\n", k->name, why);
		return 1;
	}
	int status = 0;
	if (!run_kernel(&f->cx, g->cu, f->mod, k, g->mod, g->bench, &status))
		status = 1; /* (a failed driver call returns false and only prints) */
	return status;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"bench", required_argument, 0, 'b'}, {"ptx", required_argument, 0, 'p'}, {"gemm", required_argument, 0, 'g'},
		{"link", required_argument, 0, 'l'}, {"set", required_argument, 0, 's'},
		{"gemm-auto", required_argument, 0, 'a'}, {"attention", no_argument, 0, 't'}, {"help", no_argument, 0, 'h'},
		{"version", no_argument, 0, 'V'}, {"lineinfo", no_argument, 0, 'i'}, {0, 0, 0, 0},
	};
	int bench = 0, c;
	const char *ptx = NULL;
	static char *no_sets[1];
	sets = calloc((size_t)argc + 5, sizeof *sets);
	if (!sets)
		sets = no_sets;
	while ((c = getopt_long(argc, argv, "hV", opts, NULL)) != -1) {
		switch (c) {
		case 'b': {
			char *end;
			long nb = strtol(optarg, &end, 10);
			if (end == optarg || *end || nb < 0 || nb > 1000000000) {
				fprintf(stderr, "tilepx-run: --bench: '%s' is not a count of launches\n", optarg);
				return 2;
			}
			bench = (int)nb;
			break;
		}
		case 'p': ptx = optarg; break;
		case 'l': link_path = optarg; break;
		case 's': {
			char why[300];
			sets[nsets++] = optarg;
			if (!kernel_sets_check((const char *const *)sets, nsets, why, sizeof why)) { /* never guessed */
				fprintf(stderr, "tilepx-run: --set: %s\n", why);
				return 2;
			}
			break;
		}
		case 'g':
			if (!strchr(optarg, '=') || !strchr(strchr(optarg, '='), '*')) {
				fputs(usage, stderr);
				return 2;
			}
			gemm_spec = optarg;
			break;
		case 'a': gemm_auto = optarg; break;
		case 't': attention_check = true; break;
		case 'i': lineinfo = true; break;
		case 'h': fputs(usage, stdout); return 0;
		case 'V': printf("tilepx-run (tilepx) %s\n", TILEPX_VERSION_STRING); return 0;
		default: fputs(usage, stderr); return 2;
		}
	}
	if ((optind >= argc) == !gemm_auto || (ptx && (gemm_auto || argc - optind != 1))) {
		fputs(usage, stderr);
		return 2;
	}
	char why[300];
	tilepx_cuda *cu = tilepx_cuda_open(why, sizeof why); /* "no CUDA driver: ..." without one */
	if (!cu) {
		fprintf(stderr, "tilepx-run: %s\n", why);
		return 1;
	}
	CUdevice dev;
	CUcontext ctx;
	if (cuDeviceGet(&dev, 0) != CUDA_SUCCESS || cuDevicePrimaryCtxRetain(&ctx, dev) != CUDA_SUCCESS ||
	    cuCtxSetCurrent(ctx) != CUDA_SUCCESS) {
		fprintf(stderr, "tilepx-run: cannot create a context on GPU 0\n");
		return 1;
	}
	Gpu g = {.cu = cu, .dev = dev, .ptx_path = ptx, .bench = bench};
	RcRunner run = {.tool = "tilepx-run", .sets = sets, .nsets = nsets, .print_diags = true, .lineinfo = lineinfo,
	                .ctx = &g,
	                .file_begin = gpu_file_begin, .kernel_admit = gpu_kernel_admit, .kernel_run = gpu_kernel_run,
	                .file_end = gpu_file_end};
	int status = 0;
	const char *picked = gemm_auto ? gemm_auto_pick(dev) : NULL;
	if (gemm_auto) {
		run.nsets = nsets;
		status = picked ? rc_run_file(&run, picked) : 2;
	}
	for (int i = optind; i < argc; i++)
		status |= rc_run_file(&run, argv[i]);
	cuDevicePrimaryCtxRelease(dev);
	tilepx_cuda_close(cu);
	return status;
}
