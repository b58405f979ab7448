/* tilepx-run: run emitted PTX on a GPU through the CUDA driver API and check
 * every byte of every param buffer against the CPU reference (src/ref/).
 *
 *   tilepx-run [--bench N] [--ptx FILE.ptx] [--link FILE.ptx] [--gemm C=A*B] FILE.tile...
 *
 * One line per kernel: PASS, FAIL (first mismatches) or SKIP (target the GPU
 * cannot run). Exit 1 on any failure, 2 on usage errors. */
#define _POSIX_C_SOURCE 200809L
#include "tilepx.h"

#include <cuda.h>
#include <getopt.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static const char *usage =
	"usage: tilepx-run [--bench N] [--ptx FILE.ptx] [--link FILE.ptx] [--gemm C=A*B] FILE.tile...\n\n"
	"Emit each .tile program (or load --ptx, emitted from the one FILE.tile), launch every kernel\n"
	"with grid x threads, and compare every param buffer with the CPU reference, bit for bit.\n"
	"Inputs hold a deterministic pattern (distinct values per buffer up to the dtype's range).\n"
	"--bench N times N launches after a warm-up and prints microseconds per launch and GB/s.\n"
	"--gemm C=A*B checks param C against a dense host product of params A [M, K] and B [K, N]\n"
	"(f16 or bf16, row-major) instead of running the CPU reference (for sizes the reference\n"
	"cannot run in time), and reports TFLOPS with --bench. 'fill small' inputs make it exact.\n"
	"--link FILE.ptx links a PTX module (hand-written, calling the program's device functions)\n"
	"with the emitted one through the driver's linker (cuLinkCreate/AddData/Complete); the\n"
	"program's extern kernels are defined there.\n";

static const char *link_path;

/* --gemm: names of C, A, B */
static const char *gemm_names[3];

static float to_f32(uint16_t h, bool bf16)
{
	uint32_t u;
	if (bf16) {
		u = (uint32_t)h << 16;
	} else {
		uint32_t sign = (uint32_t)(h >> 15) << 31, e = (h >> 10) & 31, m = h & 1023;
		if (e == 0) {
			float f = (float)m / 16777216.0f;
			memcpy(&u, &f, 4);
			u |= sign;
		} else if (e == 31) {
			u = sign | 0x7f800000u | (m << 13);
		} else {
			u = sign | ((e + 112) << 23) | (m << 13);
		}
	}
	float f;
	memcpy(&f, &u, 4);
	return f;
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

/* dense C = A * B on the host, in k order per element (exact for 'fill small') */
static bool dense_gemm(const Buffer **pb, int np, unsigned char **want, double *flops)
{
	int ix[3] = {-1, -1, -1};
	for (int i = 0; i < np; i++)
		for (int j = 0; j < 3; j++)
			if (!strcmp(pb[i]->name, gemm_names[j]))
				ix[j] = i;
	if (ix[0] < 0 || ix[1] < 0 || ix[2] < 0)
		return false;
	const Buffer *C = pb[ix[0]], *A = pb[ix[1]], *B = pb[ix[2]];
	if (C->ndim != 2 || A->ndim != 2 || B->ndim != 2 || C->dt != DT_F32 || A->dt != B->dt ||
	    (A->dt != DT_F16 && A->dt != DT_BF16) || A->shape[0] != C->shape[0] || B->shape[1] != C->shape[1] ||
	    A->shape[1] != B->shape[0] || C->has_layout || A->has_layout || B->has_layout)
		return false;
	int64_t M = C->shape[0], N = C->shape[1], K = A->shape[1];
	bool bf = A->dt == DT_BF16;
	float *a = malloc(sizeof(float) * (size_t)(M * K)), *b = malloc(sizeof(float) * (size_t)(K * N)),
	      *c = calloc((size_t)(M * N), sizeof(float));
	for (int64_t i = 0; i < M * K; i++)
		a[i] = to_f32(((uint16_t *)want[ix[1]])[i], bf);
	for (int64_t i = 0; i < K * N; i++)
		b[i] = to_f32(((uint16_t *)want[ix[2]])[i], bf);
	enum { NT = 32 };
	pthread_t th[NT];
	GemmPart part[NT];
	int started = 0;
	for (int t = 0; t < NT; t++) {
		part[t] = (GemmPart){a, b, c, M * t / NT, M * (t + 1) / NT, N, K};
		if (pthread_create(&th[t], NULL, gemm_rows, &part[t]) == 0)
			started = t + 1;
		else
			break;
	}
	for (int t = 0; t < started; t++)
		pthread_join(th[t], NULL);
	if (started < NT) { /* no threads: the rest here */
		GemmPart rest = {a, b, c, M * started / NT, M, N, K};
		gemm_rows(&rest);
	}
	memcpy(want[ix[0]], c, sizeof(float) * (size_t)(M * N));
	free(a);
	free(b);
	free(c);
	*flops = 2.0 * (double)M * (double)N * (double)K;
	return true;
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *b = malloc((size_t)n + 1);
	*len = fread(b, 1, (size_t)n, f);
	b[*len] = 0;
	fclose(f);
	return b;
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


static uint64_t load(const unsigned char *p, int es)
{
	uint64_t v = 0;
	memcpy(&v, p, (size_t)es);
	return v;
}

static bool run_kernel(Ctx *cx, const Module *m, const Kernel *k, CUmodule mod, int bench, int *status)
{
	int np = k->nparams;
	const Buffer **pb = calloc((size_t)np + 1, sizeof *pb);
	for (size_t i = 0; i < k->nbufs; i++)
		if (k->bufs[i]->mem == MEM_GLOBAL)
			pb[k->bufs[i]->param_index] = k->bufs[i];
	unsigned char **init = calloc((size_t)np + 1, sizeof *init), **want = calloc((size_t)np + 1, sizeof *want),
	              **got = calloc((size_t)np + 1, sizeof *got);
	CUdeviceptr *dev = calloc((size_t)np + 1, sizeof *dev);
	void **args = calloc((size_t)np + 1, sizeof *args);
	size_t *bytes = calloc((size_t)np + 1, sizeof *bytes);
	bool ok = true;
	CUfunction fn;
	CU(cuModuleGetFunction(&fn, mod, k->name));
	for (int i = 0; i < np; i++) {
		int es = dtype_bytes(pb[i]->dt);
		bytes[i] = (size_t)(pb[i]->storage * es);
		init[i] = malloc(bytes[i]);
		want[i] = malloc(bytes[i]);
		got[i] = malloc(bytes[i]);
		ref_fill_param(pb[i], init[i], i);
		memcpy(want[i], init[i], bytes[i]);
		CU(cuMemAlloc(&dev[i], bytes[i]));
		CU(cuMemcpyHtoD(dev[i], init[i], bytes[i]));
		args[i] = &dev[i];
	}
	CU(cuLaunchKernel(fn, (unsigned)k->grid, (unsigned)k->grid_y, 1, (unsigned)k->threads, 1, 1, 0, 0, args, NULL));
	CUresult lr = cuCtxSynchronize();
	if (lr != CUDA_SUCCESS) {
		const char *s = NULL;
		cuGetErrorString(lr, &s);
		printf("FAIL %s: launch: %s\n", k->name, s ? s : "?");
		*status = 1;
		return false;
	}
	for (int i = 0; i < np; i++)
		CU(cuMemcpyDtoH(got[i], dev[i], bytes[i]));
	int64_t moved = 0;
	double flops = 0;
	if (gemm_names[0]) {
		if (!dense_gemm(pb, np, want, &flops)) {
			printf("FAIL %s: --gemm needs row-major params C f32 [M, N], A [M, K], B [K, N] (f16 or bf16)\n", k->name);
			*status = 1;
			return false;
		}
	} else if (!ref_run_kernel(cx, k, want, &moved)) {
		printf("FAIL %s: the CPU reference could not run this program\n", k->name);
		*status = 1;
		return false;
	}
	int shown = 0;
	int64_t bad = 0;
	for (int i = 0; i < np; i++) {
		int es = dtype_bytes(pb[i]->dt);
		for (int64_t e = 0; e < pb[i]->storage; e++) {
			if (!memcmp(want[i] + e * es, got[i] + e * es, (size_t)es))
				continue;
			if (bad++ == 0)
				printf("FAIL %s\n", k->name);
			if (shown < 8) {
				int64_t c[MAX_DIMS];
				printf("  %s element %lld", pb[i]->name, (long long)e);
				if (ref_coord_of(pb[i], e, c)) {
					printf(" [");
					for (int d = 0; d < pb[i]->ndim; d++)
						printf("%s%lld", d ? ", " : "", (long long)c[d]);
					printf("]");
				}
				printf(": expected 0x%0*llx, got 0x%0*llx\n", es * 2, (unsigned long long)load(want[i] + e * es, es),
				       es * 2, (unsigned long long)load(got[i] + e * es, es));
				shown++;
			}
		}
	}
	if (bad) {
		printf("  %lld mismatching elements\n", (long long)bad);
		*status = 1;
		ok = false;
	} else {
		printf("PASS %s (%s, grid %lld x %lld x %lld threads%s)\n", k->name, m->target->name, (long long)k->grid,
		       (long long)k->grid_y, (long long)k->threads, gemm_names[0] ? ", against a dense host GEMM" : "");
	}
	if (ok && bench > 0) {
		CUevent a, b;
		CU(cuEventCreate(&a, 0));
		CU(cuEventCreate(&b, 0));
		for (int w = 0; w < 3; w++)
			CU(cuLaunchKernel(fn, (unsigned)k->grid, (unsigned)k->grid_y, 1, (unsigned)k->threads, 1, 1, 0, 0, args, NULL));
		CU(cuEventRecord(a, 0));
		for (int r = 0; r < bench; r++)
			CU(cuLaunchKernel(fn, (unsigned)k->grid, (unsigned)k->grid_y, 1, (unsigned)k->threads, 1, 1, 0, 0, args, NULL));
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
	}
	for (int i = 0; i < np; i++) {
		cuMemFree(dev[i]);
		free(init[i]);
		free(want[i]);
		free(got[i]);
	}
	free(pb);
	free(init);
	free(want);
	free(got);
	free(dev);
	free(args);
	free(bytes);
	return ok;
}

static int device_sm(CUdevice d)
{
	int maj = 0, min = 0;
	cuDeviceGetAttribute(&maj, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, d);
	cuDeviceGetAttribute(&min, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, d);
	return maj * 10 + min;
}

static bool run_file(const char *path, const char *ptx_path, int bench, CUdevice dev, int *status)
{
	size_t len;
	char *src = slurp(path, &len);
	if (!src) {
		fprintf(stderr, "tilepx-run: cannot read %s\n", path);
		*status = 1;
		return false;
	}
	Ctx cx = {0};
	cx.arena = arena_new();
	cx.diags.file = path;
	cx.diags.src = src;
	cx.diags.len = len;
	Str ptx = {0};
	Module *m = parse_module(&cx, path, src, len);
	bool ok = !cx.diags.errors && emit_module(&cx, m, NULL, &ptx);
	if (!ok) {
		diag_print(&cx.diags, stderr);
		printf("FAIL %s: does not compile\n", path);
		*status = 1;
		goto done;
	}
	int sm = device_sm(dev);
	const Target *t = m->target;
	/* arch-specific targets (sm_XYa/f) run only on that family; plain ones on anything newer */
	bool runnable = t->suffix ? (t->sm == sm) : (t->sm <= sm);
	if (!runnable) {
		for (size_t i = 0; i < m->nkernels; i++)
			printf("SKIP %s (target %s; this GPU is sm_%d)\n", m->kernels[i]->name, t->name, sm);
		goto done;
	}
	char *text = ptx.s;
	size_t n;
	if (ptx_path) {
		text = slurp(ptx_path, &n);
		if (!text) {
			fprintf(stderr, "tilepx-run: cannot read %s\n", ptx_path);
			*status = 1;
			goto done;
		}
	}
	char info[8192] = "", err[8192] = "";
	CUjit_option opt[] = {CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES, CU_JIT_ERROR_LOG_BUFFER,
	                      CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
	void *val[] = {info, (void *)(uintptr_t)sizeof info, err, (void *)(uintptr_t)sizeof err};
	CUmodule mod;
	CUresult r;
	if (link_path) {
		/* the driver's linker: the emitted module, then the hand-written one */
		size_t ln;
		char *hand = slurp(link_path, &ln);
		CUlinkState ls;
		void *cubin = NULL;
		size_t cubin_size = 0;
		if (!hand) {
			fprintf(stderr, "tilepx-run: cannot read %s\n", link_path);
			*status = 1;
			goto done;
		}
		r = cuLinkCreate(4, opt, val, &ls);
		if (r == CUDA_SUCCESS)
			r = cuLinkAddData(ls, CU_JIT_INPUT_PTX, text, strlen(text) + 1, path, 0, NULL, NULL);
		if (r == CUDA_SUCCESS)
			r = cuLinkAddData(ls, CU_JIT_INPUT_PTX, hand, ln + 1, link_path, 0, NULL, NULL);
		if (r == CUDA_SUCCESS)
			r = cuLinkComplete(ls, &cubin, &cubin_size);
		if (r == CUDA_SUCCESS)
			r = cuModuleLoadData(&mod, cubin);
		cuLinkDestroy(ls);
		free(hand);
	} else {
		r = cuModuleLoadDataEx(&mod, text, 4, opt, val);
	}
	if (r != CUDA_SUCCESS) {
		const char *s = NULL;
		cuGetErrorString(r, &s);
		printf("FAIL %s: JIT: %s\n%s\n%s\n", path, s ? s : "?", err, info);
		*status = 1;
		if (text != ptx.s)
			free(text);
		goto done;
	}
	for (size_t i = 0; i < m->nkernels; i++) {
		const Kernel *k = m->kernels[i];
		if (k->is_func)
			continue;
		if (k->is_extern && !link_path) {
			printf("SKIP %s (extern: its body is in a module to --link)\n", k->name);
			continue;
		}
		if (k->is_extern && !gemm_names[0]) {
			printf("FAIL %s: an extern kernel has no reference meaning; check it with --gemm\n", k->name);
			*status = 1;
			continue;
		}
		run_kernel(&cx, m, k, mod, bench, status);
	}
	cuModuleUnload(mod);
	if (text != ptx.s)
		free(text);
done:
	str_free(&ptx);
	arena_free(cx.arena);
	free(src);
	return ok;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"bench", required_argument, 0, 'b'}, {"ptx", required_argument, 0, 'p'}, {"gemm", required_argument, 0, 'g'},
		{"link", required_argument, 0, 'l'},
		{"help", no_argument, 0, 'h'},        {0, 0, 0, 0},
	};
	int bench = 0, c;
	const char *ptx = NULL;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'b': bench = atoi(optarg); break;
		case 'p': ptx = optarg; break;
		case 'l': link_path = optarg; break;
		case 'g': {
			static char spec[256];
			snprintf(spec, sizeof spec, "%s", optarg);
			char *eq = strchr(spec, '='), *st = eq ? strchr(eq, '*') : NULL;
			if (!st) {
				fputs(usage, stderr);
				return 2;
			}
			*eq = *st = 0;
			gemm_names[0] = spec;
			gemm_names[1] = eq + 1;
			gemm_names[2] = st + 1;
			break;
		}
		case 'h': fputs(usage, stdout); return 0;
		default: fputs(usage, stderr); return 2;
		}
	}
	if (optind >= argc || (ptx && argc - optind != 1)) {
		fputs(usage, stderr);
		return 2;
	}
	CUresult r = cuInit(0);
	int count = 0;
	if (r != CUDA_SUCCESS || cuDeviceGetCount(&count) != CUDA_SUCCESS || count == 0) {
		const char *s = NULL;
		cuGetErrorString(r, &s);
		fprintf(stderr, "tilepx-run: no CUDA GPU or driver is available (cuInit: %s)\n", s ? s : "no device");
		return 1;
	}
	CUdevice dev;
	CUcontext ctx;
	if (cuDeviceGet(&dev, 0) != CUDA_SUCCESS || cuDevicePrimaryCtxRetain(&ctx, dev) != CUDA_SUCCESS ||
	    cuCtxSetCurrent(ctx) != CUDA_SUCCESS) {
		fprintf(stderr, "tilepx-run: cannot create a context on GPU 0\n");
		return 1;
	}
	int status = 0;
	for (int i = optind; i < argc; i++)
		run_file(argv[i], ptx, bench, dev, &status);
	cuDevicePrimaryCtxRelease(dev);
	return status;
}
