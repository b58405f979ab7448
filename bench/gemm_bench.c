/* bench/gemm_bench.c: a fair GEMM benchmark in one process on one GPU:
 * tilepx's kernel, cublasGemmEx (default algorithm, tensor ops) and cuBLASLt
 * (the heuristic's algorithms, the fastest measured, 32 MiB workspace) on the
 * same device buffers and stream, launches interleaved in rounds, SM clock
 * and power logged through NVML (dlopen, no header needed). Issue 27.
 *
 *   gemm_bench [options] M N K          one size
 *   gemm_bench [options] --issue-sizes  4096^3, 8192^3, 4095x4097x4096,
 *                                       8192x8192x1024, 128x8192x8192
 *   gemm_bench [options] --auto M N K   the kernel and its window (P, Q) picked
 *                                       by tilepx_gemm_choose (issue 37) from the
 *                                       size, --dtype and the device's SM count
 *
 * C [M, N] row-major = A [M, K] row-major (K-major) x B, B either [K, N]
 * row-major (--b kn) or [N, K] row-major (--b nk, K-major). cuBLAS is
 * column-major: it computes C^T [N, M] = B^T A^T, reading A as A^T [K, M]
 * with ld K and B as [N, K] with ld N (kn, no transpose) or as [K, N] with
 * ld K transposed (nk).
 *
 * The tilepx kernel is compiled in this process through the C API
 * (tilepx_compile for the PTX, tilepx_launches_set for its grid, scalars and
 * tensor maps at each size): no PTX file can go stale, and a kernel with
 * runtime M, N, K gets its launch facts for every size. Its dtypes and B's
 * orientation come from its param declarations (bench/gemm_host.h says why).
 *
 * Checks, before anything is timed (each C is first filled with NaN bytes,
 * tilepx's C sits between guard bytes that must stay untouched):
 *   --data int: integers in [-2, 2]: every f32 partial sum is exact, so
 *     tilepx's C, cublasGemmEx's and cuBLASLt's must be equal bit for bit at
 *     every element, and equal to a dense host GEMM when M, N, K <= 1024
 *     (--host-max); a bf16 or f16 C is the exact sum rounded to nearest even.
 *   --data random: uniform in [-1, 1] (seed printed): max |X - gemmEx| /
 *     max |gemmEx| <= --tol (default 1e-3 for an f32 C: f32 accumulation in
 *     another order over K <= 8192 terms stays near 1e-6; 1e-2 for a bf16 or
 *     f16 C, whose rounding alone may differ by one unit in the last place,
 *     2^-8 = 3.9e-3 relative, where the two f32 sums straddle a rounding
 *     boundary).
 * A failed check is a FAIL line, exit status 1, and that implementation is not
 * timed. Exit 2: usage; 3: no GPU or a CUDA/cuBLAS call failed.
 *
 * FP8 (--dtype e4m3:bf16, or a kernel with e4m3 A and B): the data are e4m3
 * codes, the integers above or uniform in [-1, 1] rounded to e4m3 (finite:
 * never the NaN code). cublasGemmEx has no FP8, so cuBLASLt is the
 * comparison (and the reference of the checks above): A and B
 * CUDA_R_8F_E4M3, C and D the output type, compute 32F, no scale pointers
 * (scales 1.0), TN only (cuBLASLt's FP8 needs op(A) transposed: our B
 * [N, K]), fast accumulation on by default (--fp8-fast-accum 0 turns it off):
 * the products summed in the tensor core's accumulator throughout, as
 * tilepx's kernel sums them, not promoted to f32 every few k-steps by CUDA
 * cores. Integer data stay exact if |sums| <= 4 K stay within the tensor
 * core's FP8 accumulator precision: K <= 2048 (GB_FP8_INT_K_MAX).
 *
 * Fused epilogues (--epilogue, issue 34), against cuBLASLt's on the same
 * buffers (cublasGemmEx has no bias epilogue: it runs only for alpha_beta):
 *   bias, relu_bias, gelu_bias: C = act(A B + bias), bias a [N] vector of
 *     C's dtype (the kernel's param --bias-name, default BIAS, [1, N] or [N]),
 *     filled like A and B (seeded, stream 2); cuBLASLt with
 *     CUBLASLT_EPILOGUE_BIAS / RELU_BIAS / GELU_BIAS and the bias pointer.
 *   silu_bias: C = silu(A B + bias); cuBLASLt has no SiLU epilogue, so it
 *     runs CUBLASLT_EPILOGUE_BIAS (the time to beat, not the same values):
 *     the kernel is checked against the host only, where the host runs
 *     (--host-max; larger sizes are timed unchecked, and say so).
 *   scale_amax (FP8, e4m3 -> bf16): C = bf16(scale_a scale_b A B) and
 *     AMAX = max |scale_a scale_b A B| (f32, before the rounding), the FP8
 *     training epilogue (--scale-a, --scale-b: the kernel's f32 params
 *     scale_a and scale_b through --set; its AMAX [1, 1] param zeroed before
 *     the check launch, then left to accumulate); cuBLASLt with
 *     CUBLASLT_MATMUL_DESC_A_SCALE_POINTER / B_SCALE_POINTER and
 *     AMAX_D_POINTER (without the amax, said in a SKIP line, where no
 *     algorithm takes it with a bf16 D). The amaxes are checked against the
 *     host's (integer data bit for bit) and tilepx's against cuBLASLt's
 *     within 2^-7 relative; C as the plain FP8 GEMM's (bit for bit on
 *     integer data, else max |C - Lt| / max |Lt| <= --tol).
 *   alpha_beta: C = alpha A B + beta C (--alpha, --beta; f32 scalar params
 *     named alpha and beta in the kernel, passed through --set), C filled
 *     before the check launch with seeded data (stream 3) like A; cuBLASLt and
 *     cublasGemmEx with the same alpha and beta. The timed launches keep
 *     updating C (the values converge for |beta| < 1: nothing overflows).
 * Checks, element by element against cuBLASLt (and the host where it ran):
 *   integer data, no GELU: every value is exact, so bit for bit.
 *   otherwise |X - Lt| <= tol per element, the largest error printed:
 *     16-bit C: 2 units in the last place of max(|X|, |Lt|) (C's rounding)
 *       + K 2^-24 S (f32 sums in another order; S = max |Lt|)
 *       + for GELU S 2^-10 (0.5 |x| times tanh.approx.f32's relative bound
 *       2^-11, docs/ptx-notes.md, taken twice: cuBLASLt's own tanh is not
 *       documented);
 *     f32 C (alpha_beta): 1e-5 |Lt| + 1e-6 sqrt(K) S. */
#define _GNU_SOURCE
#include "gemm_host.h"

#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda.h>
#include <dlfcn.h>
#include <math.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <time.h>
#include <unistd.h>

#include <tilepx/tilepx.h>

static const char usage[] =
	"usage: gemm_bench [--tile FILE.tile] [--kernel NAME] [--names C=A*B] [--dtype IN:OUT] [--b kn|nk]\n"
	"                  [--data random|int] [--seed S] [--warmup W] [--rounds R] [--tol T] [--host-max D]\n"
	"                  [--lt-algos N] [--set NAME=V]... (M N K | --issue-sizes)\n"
	"                  [--fp8-fast-accum 0|1] [--auto] [--zero-c]\n"
	"                  [--epilogue none|bias|relu_bias|gelu_bias|silu_bias|alpha_beta|scale_amax] [--alpha A]\n"
	"                  [--beta B] [--scale-a SA] [--scale-b SB] [--bias-name NAME]\n"
	"Times tilepx's kernel (--tile), cublasGemmEx and cuBLASLt on the same buffers, interleaved;\n"
	"checks each result first. IN:OUT is f16:f32 (default, or the kernel's), bf16:bf16, bf16:f32,\n"
	"f16:f16, or e4m3:bf16 (FP8: cuBLASLt only, B [N, K]). --rounds 0 checks only.\n"
	"--zero-c: zero C (cuMemsetD32Async) before every tilepx launch, inside its timed interval: a kernel that\n"
	"  accumulates into C (split-K by red.add, bench/gemm_sm90_splitk_*.tile; --auto sets it for such a pick)\n"
	"--auto (one size): the kernel and its window P, Q from tilepx_gemm_choose (--dtype, default f16:f32;\n"
	"the device's SM count); run from the repository's root. --set P=/Q= overrides the window.\n"
	"Defaults: --data random --seed 1 --warmup 20 --rounds 200 --fp8-fast-accum 1 --epilogue none --alpha 1.25 --beta -0.5\n"
	"--scale-a 0.5 --scale-b 4 (powers of two: integer data stay exact).\n";

#define GUARD 256
#define WORKSPACE_BYTES (32u << 20)
#define MAX_LT_ALGOS 16

typedef struct Options {
	const char *tile, *kernel;
	char an[64], bn[64], cn[64];
	gb_dtype in, out; /* GB_NONE: the kernel's */
	int b_nk;         /* -1: the kernel's, else kn */
	int integers;
	unsigned long long seed;
	int warmup, rounds, host_max, lt_algos;
	int fp8_fast_accum; /* cuBLASLt's CUBLASLT_MATMUL_DESC_FAST_ACCUM for FP8 */
	double tol; /* < 0: by C's dtype */
	const char *sets[32];
	int nsets;
	int auto_pick;         /* --auto: tilepx_gemm_choose picks --tile, --kernel, P and Q */
	char auto_sets[2][32]; /* the P= and Q= it adds */
	int epi;            /* EPI_*: the fused epilogue compared */
	float alpha, beta;  /* alpha_beta's scalars */
	float scale_a, scale_b; /* scale_amax's per-tensor scales */
	char biasn[64];     /* the kernel's bias param */
	int zero_c;         /* --zero-c (or the chooser's split-K pick): C zeroed before every tilepx launch, timed */
} Options;

enum { EPI_NONE, EPI_BIAS, EPI_RELU_BIAS, EPI_GELU_BIAS, EPI_ALPHA_BETA, EPI_SILU_BIAS, EPI_SCALE_AMAX, NEPI };
static const char *epi_name[NEPI] = {"none", "bias", "relu_bias", "gelu_bias", "alpha_beta", "silu_bias", "scale_amax"};
static int epi_has_bias(int e)
{
	return e == EPI_BIAS || e == EPI_RELU_BIAS || e == EPI_GELU_BIAS || e == EPI_SILU_BIAS;
}

static int failures;
/* how cuBLASLt runs scale_amax: the scale pointers and AMAX_D_POINTER; the
 * scale pointers alone (the amax is then max |C| of its bf16 output, on the
 * host); alpha = scale_a scale_b (the same products, no pointers) */
enum { LT_ALPHA, LT_SCALES, LT_SCALES_AMAX };
static const char *lt_mode_name[3] = {"alpha = scale_a scale_b", "A/B_SCALE_POINTER",
                                      "A/B_SCALE_POINTER and AMAX_D_POINTER"};

static void fail(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	printf("FAIL ");
	vprintf(fmt, ap);
	printf("\n");
	va_end(ap);
	failures++;
}

static void fatal_cu(CUresult r, const char *what, int line)
{
	const char *s = NULL;
	cuGetErrorString(r, &s);
	fprintf(stderr, "gemm_bench:%d: %s failed: %s\n", line, what, s ? s : "?");
	exit(3);
}
#define CU(x)                                     \
	do {                                      \
		CUresult r_ = (x);                \
		if (r_ != CUDA_SUCCESS)           \
			fatal_cu(r_, #x, __LINE__); \
	} while (0)
#define CB(x)                                                                                          \
	do {                                                                                           \
		int s_ = (int)(x);                                                                     \
		if (s_) {                                                                              \
			fprintf(stderr, "gemm_bench:%d: %s failed: cuBLAS status %d\n", __LINE__, #x, s_); \
			exit(3);                                                                       \
		}                                                                                      \
	} while (0)

/* ---- NVML through dlopen: SM clock, power, temperature, clock-event reasons ---- */

typedef int (*nvml_void_fn)(void);
typedef int (*nvml_bus_fn)(const char *, void **);
typedef int (*nvml_clock_fn)(void *, int, unsigned *);
typedef int (*nvml_uint_fn)(void *, unsigned *);
typedef int (*nvml_reasons_fn)(void *, unsigned long long *);

typedef struct Nvml {
	void *lib, *dev;
	nvml_clock_fn clock, max_clock, temperature;
	nvml_uint_fn power, power_limit;
	nvml_reasons_fn reasons;
	char why[160];
} Nvml;

static void nvml_open(Nvml *nv, CUdevice d)
{
	memset(nv, 0, sizeof *nv);
	nv->lib = dlopen("libnvidia-ml.so.1", RTLD_NOW);
	if (!nv->lib) {
		snprintf(nv->why, sizeof nv->why, "libnvidia-ml.so.1 not found (%s)", dlerror());
		return;
	}
	nvml_void_fn init = (nvml_void_fn)dlsym(nv->lib, "nvmlInit_v2");
	nvml_bus_fn by_bus = (nvml_bus_fn)dlsym(nv->lib, "nvmlDeviceGetHandleByPciBusId_v2");
	nv->clock = (nvml_clock_fn)dlsym(nv->lib, "nvmlDeviceGetClockInfo");
	nv->max_clock = (nvml_clock_fn)dlsym(nv->lib, "nvmlDeviceGetMaxClockInfo");
	nv->temperature = (nvml_clock_fn)dlsym(nv->lib, "nvmlDeviceGetTemperature");
	nv->power = (nvml_uint_fn)dlsym(nv->lib, "nvmlDeviceGetPowerUsage");
	nv->power_limit = (nvml_uint_fn)dlsym(nv->lib, "nvmlDeviceGetEnforcedPowerLimit");
	nv->reasons = (nvml_reasons_fn)dlsym(nv->lib, "nvmlDeviceGetCurrentClocksEventReasons");
	if (!nv->reasons)
		nv->reasons = (nvml_reasons_fn)dlsym(nv->lib, "nvmlDeviceGetCurrentClocksThrottleReasons");
	char bus[64] = "";
	if (!init || !by_bus || !nv->clock || !nv->power || init() != 0 ||
	    cuDeviceGetPCIBusId(bus, sizeof bus, d) != CUDA_SUCCESS || by_bus(bus, &nv->dev) != 0) {
		snprintf(nv->why, sizeof nv->why, "NVML could not open the device (bus id '%s')", bus);
		nv->dev = NULL;
	}
}

typedef struct Sample {
	unsigned sm_mhz, mw, temp_c;
	unsigned long long reasons;
} Sample;

static int nvml_sample(const Nvml *nv, Sample *s)
{
	memset(s, 0, sizeof *s);
	if (!nv->dev)
		return 0;
	nv->clock(nv->dev, 1 /* NVML_CLOCK_SM */, &s->sm_mhz);
	nv->power(nv->dev, &s->mw);
	if (nv->temperature)
		nv->temperature(nv->dev, 0 /* NVML_TEMPERATURE_GPU */, &s->temp_c);
	if (nv->reasons)
		nv->reasons(nv->dev, &s->reasons);
	return 1;
}

static void nvml_log(const Nvml *nv, const char *when)
{
	Sample s;
	if (!nvml_sample(nv, &s)) {
		printf("clocks %s: not logged: %s\n", when, nv->why);
		return;
	}
	printf("clocks %s: SM %u MHz, %.1f W, %u C, clock-event reasons 0x%llx\n", when, s.sm_mhz, s.mw / 1000.0,
	       s.temp_c, s.reasons);
}

/* a thread sampling every 10 ms while the timed rounds run */
typedef struct Sampler {
	const Nvml *nv;
	atomic_int stop;
	unsigned n, mhz_min, mhz_max, mw_max, temp_max;
	double mhz_sum, mw_sum;
	unsigned long long reasons; /* OR of every sample's */
	pthread_t th;
	int running;
} Sampler;

static void *sampler_main(void *arg)
{
	Sampler *sp = arg;
	while (!atomic_load(&sp->stop)) {
		Sample s;
		if (nvml_sample(sp->nv, &s)) {
			if (!sp->n || s.sm_mhz < sp->mhz_min)
				sp->mhz_min = s.sm_mhz;
			if (s.sm_mhz > sp->mhz_max)
				sp->mhz_max = s.sm_mhz;
			if (s.mw > sp->mw_max)
				sp->mw_max = s.mw;
			if (s.temp_c > sp->temp_max)
				sp->temp_max = s.temp_c;
			sp->mhz_sum += s.sm_mhz;
			sp->mw_sum += s.mw;
			sp->reasons |= s.reasons;
			sp->n++;
		}
		struct timespec ts = {0, 10 * 1000 * 1000};
		nanosleep(&ts, NULL);
	}
	return NULL;
}

static void sampler_start(Sampler *sp, const Nvml *nv)
{
	memset(sp, 0, sizeof *sp);
	sp->nv = nv;
	atomic_init(&sp->stop, 0);
	sp->running = nv->dev && pthread_create(&sp->th, NULL, sampler_main, sp) == 0;
}

static void sampler_stop(Sampler *sp)
{
	if (!sp->running) {
		printf("clocks during the timed rounds: not logged (no NVML)\n");
		return;
	}
	atomic_store(&sp->stop, 1);
	pthread_join(sp->th, NULL);
	if (!sp->n) {
		printf("clocks during the timed rounds: no sample\n");
		return;
	}
	printf("clocks during the timed rounds (%u samples, 10 ms apart): SM %u..%u MHz (mean %.0f), power mean %.1f W, "
	       "max %.1f W, max %u C, clock-event reasons seen 0x%llx\n",
	       sp->n, sp->mhz_min, sp->mhz_max, sp->mhz_sum / sp->n, sp->mw_sum / sp->n / 1000.0, sp->mw_max / 1000.0,
	       sp->temp_max, sp->reasons);
}

/* ---- the tilepx kernel ---- */

typedef struct Tile {
	char *src;
	size_t len;
	tilepx_result ptx;
	gb_kernel k;
	gb_roles roles;
	CUmodule mod;
	int loaded;
	tilepx_cuda *cu; /* the library's launch layer over the driver this program links */
	char why[512];   /* set: the kernel could not be read at all */
} Tile;

/* the driver's entry points the launch layer asks for, as this program
 * links them (the driver, or bench/gemm_mock.c's host stand-ins) */
static void *linked_driver(void *ctx, const char *name)
{
	(void)ctx;
	static const struct {
		const char *name;
		void *fn;
	} table[] = {
		{"cuGetErrorString", (void *)cuGetErrorString},
		{"cuInit", (void *)cuInit},
		{"cuDeviceGet", (void *)cuDeviceGet},
		{"cuDeviceGetCount", (void *)cuDeviceGetCount},
		{"cuDevicePrimaryCtxRetain", (void *)cuDevicePrimaryCtxRetain},
		{"cuCtxGetCurrent", (void *)cuCtxGetCurrent},
		{"cuCtxSetCurrent", (void *)cuCtxSetCurrent},
		{"cuModuleLoadDataEx", (void *)cuModuleLoadDataEx},
		{"cuModuleGetFunction", (void *)cuModuleGetFunction},
		{"cuModuleUnload", (void *)cuModuleUnload},
		{"cuFuncSetAttribute", (void *)cuFuncSetAttribute},
		{"cuTensorMapEncodeTiled", (void *)cuTensorMapEncodeTiled},
		{"cuLaunchKernelEx", (void *)cuLaunchKernelEx},
		{"cuStreamSynchronize", (void *)cuStreamSynchronize},
	};
	for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
		if (!strcmp(table[i].name, name))
			return table[i].fn;
	return NULL;
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	size_t cap = 1 << 16, n = 0;
	char *s = malloc(cap + 1);
	for (size_t got; s && (got = fread(s + n, 1, cap - n, f)) > 0;) {
		n += got;
		if (n == cap) {
			char *t = realloc(s, 2 * cap + 1);
			if (!t)
				free(s);
			s = t;
			cap *= 2;
		}
	}
	fclose(f);
	if (s)
		s[n] = 0;
	*len = n;
	return s;
}

static void first_line(const char *text, char *out, size_t n)
{
	snprintf(out, n, "%s", text ? text : "(no diagnostics)");
	char *nl = strchr(out, '\n');
	if (nl)
		*nl = 0;
}

static void tile_open(Tile *t, const Options *o)
{
	memset(t, 0, sizeof *t);
	t->src = slurp(o->tile, &t->len);
	if (!t->src) {
		snprintf(t->why, sizeof t->why, "cannot read %s", o->tile);
		return;
	}
	if (!tilepx_compile(o->tile, t->src, t->len, NULL, TILEPX_EMIT, &t->ptx)) {
		fputs(t->ptx.diagnostics ? t->ptx.diagnostics : "", stderr);
		snprintf(t->why, sizeof t->why, "%s does not compile (diagnostics above)", o->tile);
		return;
	}
	char why[300];
	if (!(t->cu = tilepx_cuda_open_with(linked_driver, NULL, why, sizeof why))) {
		snprintf(t->why, sizeof t->why, "the launch layer: %s", why);
		return;
	}
	if (!gb_read_kernel(t->src, t->len, o->kernel, &t->k, why, sizeof why) ||
	    !gb_roles_of(&t->k, o->an, o->bn, o->cn, &t->roles, why, sizeof why)) {
		snprintf(t->why, sizeof t->why, "%s: %s", o->tile, why);
		return;
	}
	char info[8192] = "", err[8192] = "";
	CUjit_option opt[] = {CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES, CU_JIT_ERROR_LOG_BUFFER,
	                      CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
	void *val[] = {info, (void *)(uintptr_t)sizeof info, err, (void *)(uintptr_t)sizeof err};
	CUresult r = cuModuleLoadDataEx(&t->mod, t->ptx.output, 4, opt, val);
	if (r != CUDA_SUCCESS) {
		const char *s = NULL;
		cuGetErrorString(r, &s);
		snprintf(t->why, sizeof t->why, "%s: the driver does not load its PTX: %s %s", o->tile, s ? s : "?", err);
		return;
	}
	t->loaded = 1;
}

/* one launch of the tilepx kernel, bound to a size and to device buffers */
typedef struct Bound {
	tilepx_packed pk; /* the arguments, packed by the launch layer (tensor maps 128-byte aligned) */
	CUfunction fn;
	tilepx_cuda *cu;
	tilepx_launch L;
	CUdeviceptr ptr[TILEPX_MAX_PARAMS];
} Bound;

static long long dim_value(const char *d, long long m, long long n, long long k, const gb_roles *r)
{
	if (gb_is_number(d))
		return atoll(d);
	return !strcmp(d, r->m) ? m : !strcmp(d, r->n) ? n : !strcmp(d, r->k) ? k : -1;
}

/* why the kernel cannot run this size and layout (NULL: it can; b is filled) */
static const char *tile_bind(Tile *t, const Options *o, long long M, long long N, long long K, int b_nk,
                             gb_dtype in, gb_dtype out, CUdeviceptr A, CUdeviceptr B, CUdeviceptr C, CUdeviceptr bias,
                             Bound *b, char *why, size_t nwhy)
{
	const gb_roles *r = &t->roles;
	if (r->ab != in || r->out != out) {
		snprintf(why, nwhy, "the kernel computes %s x %s -> %s, not %s -> %s", gb_dtype_name(r->ab),
		         gb_dtype_name(r->ab), gb_dtype_name(r->out), gb_dtype_name(in), gb_dtype_name(out));
		return why;
	}
	if (!r->b_ambiguous && r->b_nk != b_nk) {
		snprintf(why, nwhy, "the kernel's B is %s, not %s", r->b_nk ? "[N, K]" : "[K, N]", b_nk ? "[N, K]" : "[K, N]");
		return why;
	}
	/* constant dims must be the size; scalar ones get it through --set */
	const char *dims[3] = {r->m, r->n, r->k};
	long long want[3] = {M, N, K};
	const char *sets[64];
	char setbuf[3][96];
	int nsets = 0;
	for (int i = 0; i < 3; i++) {
		if (gb_is_number(dims[i])) {
			if (atoll(dims[i]) != want[i]) {
				snprintf(why, nwhy, "its sizes are fixed at %sx%sx%s", r->m, r->n, r->k);
				return why;
			}
			continue;
		}
		int dup = 0;
		for (int j = 0; j < i; j++)
			dup |= !strcmp(dims[j], dims[i]);
		if (dup) {
			if (want[i] != dim_value(dims[i], M, N, K, r)) {
				snprintf(why, nwhy, "its %s is used for two different sizes", dims[i]);
				return why;
			}
			continue;
		}
		snprintf(setbuf[i], sizeof setbuf[i], "%s=%lld", dims[i], want[i]);
		sets[nsets++] = setbuf[i];
	}
	char scal[2][64];
	if (o->epi == EPI_ALPHA_BETA) /* the scalars as float literals (an integer spelling is not an f32's) */
		for (int i = 0; i < 2; i++) {
			snprintf(scal[i], sizeof scal[i], "%s=%.9g", i ? "beta" : "alpha", i ? o->beta : o->alpha);
			if (!strpbrk(scal[i] + 5, ".eEn"))
				strcat(scal[i], ".0");
			sets[nsets++] = scal[i];
		}
	char scales[2][64];
	if (o->epi == EPI_SCALE_AMAX) /* the kernel's scale_a and scale_b, as float literals */
		for (int i = 0; i < 2; i++) {
			snprintf(scales[i], sizeof scales[i], "scale_%c=%.9g", i ? 'b' : 'a', i ? o->scale_b : o->scale_a);
			if (!strpbrk(scales[i] + 8, ".eEn"))
				strcat(scales[i], ".0");
			sets[nsets++] = scales[i];
		}
	for (int i = 0; i < o->nsets && nsets < 64; i++)
		sets[nsets++] = o->sets[i];
	tilepx_launch all[16];
	tilepx_result diag = {0};
	int nk = tilepx_launches_set(o->tile, t->src, t->len, NULL, sets, nsets, all, 16, &diag);
	if (nk < 0) {
		char first[300];
		first_line(diag.diagnostics, first, sizeof first);
		snprintf(why, nwhy, "tilepx refuses the launch: %s", first);
		tilepx_result_free(&diag);
		return why;
	}
	tilepx_result_free(&diag);
	int which = -1;
	for (int i = 0; i < nk && i < 16; i++)
		if (!strcmp(all[i].kernel, t->k.name))
			which = i;
	if (which < 0 || all[which].nparams != t->k.npointers) {
		snprintf(why, nwhy, "the C API's launch facts do not match the param declarations read (%d pointers)",
		         t->k.npointers);
		return why;
	}
	b->L = all[which];
	CU(cuModuleGetFunction(&b->fn, t->mod, b->L.kernel));
	for (int i = 0; i < t->k.nparams; i++) {
		const gb_param *p = &t->k.p[i];
		if (p->scalar)
			continue;
		/* the epilogue's pointer (bias below): the bias, or scale_amax's AMAX [1, 1] */
		int is_bias = (epi_has_bias(o->epi) && !strcmp(p->name, o->biasn)) ||
		              (o->epi == EPI_SCALE_AMAX && !strcmp(p->name, "AMAX"));
		if (p != r->a && p != r->b && p != r->c && !is_bias) {
			snprintf(why, nwhy, "param %s is none of A, B, C%s (the bench passes only those)", p->name,
			         epi_has_bias(o->epi) ? " and the bias" : o->epi == EPI_SCALE_AMAX ? " and AMAX" : "");
			return why;
		}
		if (p->pointer_index >= TILEPX_MAX_PARAMS) {
			snprintf(why, nwhy, "param %s is past the %d pointers a launch record holds", p->name, TILEPX_MAX_PARAMS);
			return why;
		}
		b->ptr[p->pointer_index] = is_bias ? bias : p == r->a ? A : p == r->b ? B : C;
	}
	for (int i = 0; i < b->L.ntensor_maps; i++) {
		const tilepx_tensor_map *m = &b->L.tensor_maps[i];
		/* tilepx's own view of a tma param of A, B or C (dtype, dims innermost first)
		 * must agree with what the bench read from the declarations */
		const gb_param *mp = !strcmp(m->param, r->a->name) ? r->a : !strcmp(m->param, r->b->name) ? r->b
		                   : !strcmp(m->param, r->c->name) ? r->c : NULL;
		if (mp) {
			gb_dtype dt = mp == r->c ? r->out : r->ab;
			int code = dt == GB_F16    ? CU_TENSOR_MAP_DATA_TYPE_FLOAT16
			           : dt == GB_BF16 ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16
			           : dt == GB_E4M3 ? CU_TENSOR_MAP_DATA_TYPE_UINT8 /* bytes move unchanged */
			                           : CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
			long long inner = mp == r->a ? K : mp == r->c ? N : b_nk ? K : N;
			long long outer = mp == r->a ? M : mp == r->c ? M : b_nk ? N : K;
			if (m->rank != 2 || m->data_type != code || (long long)m->global_dims[0] != inner ||
			    (long long)m->global_dims[1] != outer) {
				snprintf(why, nwhy,
				         "tilepx's tensor map of %s (data type %d, dims %llu x %llu innermost first) is not the "
				         "declaration the bench read (data type %d, %lld x %lld)",
				         m->param, m->data_type, m->global_dims[0], m->global_dims[1], code, inner, outer);
				return why;
			}
		}
	}
	/* the maps encoded with the record's arguments, the params in ABI order */
	b->cu = t->cu;
	if (!tilepx_cuda_pack(t->cu, &b->L, (const unsigned long long *)b->ptr, b->L.nparams, &b->pk, why, nwhy))
		return why;
	return NULL;
}

/* one launch through the launch layer (the cluster attribute, the dynamic
 * shared memory); its reason on stderr when it fails */
static CUresult tile_launch(Bound *b, CUstream st)
{
	char why[600];
	if (tilepx_cuda_launch(b->cu, b->fn, &b->pk, st, why, sizeof why))
		return CUDA_SUCCESS;
	fprintf(stderr, "gemm_bench: tilepx: %s\n", why);
	return CUDA_ERROR_LAUNCH_FAILED;
}

/* a launch of a kernel that accumulates into C (split-K by red.add): C
 * zeroed first on the same stream, inside the timed interval, as cuBLAS's
 * own split-K does its reduction inside its time */
static CUresult tile_run(Bound *b, CUstream st, CUdeviceptr zero, size_t words)
{
	if (words) {
		CUresult r = cuMemsetD32Async(zero, 0, words, st);
		if (r != CUDA_SUCCESS)
			return r;
	}
	return tile_launch(b, st);
}

/* ---- cuBLAS ---- */

static cudaDataType cuda_type(gb_dtype t)
{
	return t == GB_F16 ? CUDA_R_16F : t == GB_BF16 ? CUDA_R_16BF : t == GB_E4M3 ? CUDA_R_8F_E4M3 : CUDA_R_32F;
}

typedef struct Problem {
	long long M, N, K;
	int b_nk;
	gb_dtype in, out;
	CUdeviceptr A, B, C[3], Craw[3], ws, bias;
	int epi;
	float alpha, beta; /* 1, 0 but for alpha_beta */
	/* scale_amax: scale_a * scale_b (f32, as the kernel multiplies), the
	 * device's scale_a and scale_b (one allocation each: aligned), each
	 * implementation's amax (f32) and how cuBLASLt takes the epilogue
	 * (LT_SCALES_AMAX, LT_SCALES, LT_ALPHA: the tries in that order) */
	float scale;
	CUdeviceptr scales[2], amax_tile, amax_lt;
	int lt_mode;
} Problem;

/* C^T [N, M] = B^T A^T in column-major terms (the header comment) */
static cublasStatus_t gemm_ex(cublasHandle_t h, const Problem *p)
{
	return cublasGemmEx(h, p->b_nk ? CUBLAS_OP_T : CUBLAS_OP_N, CUBLAS_OP_N, (int)p->N, (int)p->M, (int)p->K, &p->alpha,
	                    (const void *)p->B, cuda_type(p->in), (int)(p->b_nk ? p->K : p->N), (const void *)p->A,
	                    cuda_type(p->in), (int)p->K, &p->beta, (void *)p->C[1], cuda_type(p->out), (int)p->N,
	                    CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
}

typedef struct Lt {
	cublasLtHandle_t h;
	cublasLtMatmulDesc_t op;
	cublasLtMatrixLayout_t la, lb, lc;
	cublasLtMatmulHeuristicResult_t res[MAX_LT_ALGOS];
	int nres, best, status;
} Lt;

static void lt_setup(Lt *lt, const Problem *p, int want, int fast_accum)
{
	cublasOperation_t ta = p->b_nk ? CUBLAS_OP_T : CUBLAS_OP_N, tb = CUBLAS_OP_N;
	CB(cublasLtMatmulDescCreate(&lt->op, CUBLAS_COMPUTE_32F, CUDA_R_32F));
	CB(cublasLtMatmulDescSetAttribute(lt->op, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta));
	CB(cublasLtMatmulDescSetAttribute(lt->op, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb));
	if (p->in == GB_E4M3) { /* no scale pointers: A, B, C and D scales 1.0 */
		int8_t fast = (int8_t)fast_accum;
		CB(cublasLtMatmulDescSetAttribute(lt->op, CUBLASLT_MATMUL_DESC_FAST_ACCUM, &fast, sizeof fast));
	}
	if (p->epi == EPI_SCALE_AMAX) { /* Lt's A is our B: its scale is scale_b */
		const void *sa = (const void *)p->scales[1], *sb = (const void *)p->scales[0], *am = (const void *)p->amax_lt;
		if (p->lt_mode >= LT_SCALES) {
			CB(cublasLtMatmulDescSetAttribute(lt->op, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &sa, sizeof sa));
			CB(cublasLtMatmulDescSetAttribute(lt->op, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &sb, sizeof sb));
		}
		if (p->lt_mode == LT_SCALES_AMAX)
			CB(cublasLtMatmulDescSetAttribute(lt->op, CUBLASLT_MATMUL_DESC_AMAX_D_POINTER, &am, sizeof am));
	}
	if (epi_has_bias(p->epi)) { /* the bias indexes Lt's rows: our columns */
		cublasLtEpilogue_t e = p->epi == EPI_BIAS || p->epi == EPI_SILU_BIAS ? CUBLASLT_EPILOGUE_BIAS
		                       : p->epi == EPI_RELU_BIAS ? CUBLASLT_EPILOGUE_RELU_BIAS
		                                                 : CUBLASLT_EPILOGUE_GELU_BIAS;
		const void *bp = (const void *)p->bias;
		int32_t bt = (int32_t)cuda_type(p->out);
		CB(cublasLtMatmulDescSetAttribute(lt->op, CUBLASLT_MATMUL_DESC_EPILOGUE, &e, sizeof e));
		CB(cublasLtMatmulDescSetAttribute(lt->op, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bp, sizeof bp));
		CB(cublasLtMatmulDescSetAttribute(lt->op, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, &bt, sizeof bt));
	}
	/* Lt's A is our B as stored (column-major view), Lt's B our A */
	if (p->b_nk)
		CB(cublasLtMatrixLayoutCreate(&lt->la, cuda_type(p->in), (uint64_t)p->K, (uint64_t)p->N, p->K));
	else
		CB(cublasLtMatrixLayoutCreate(&lt->la, cuda_type(p->in), (uint64_t)p->N, (uint64_t)p->K, p->N));
	CB(cublasLtMatrixLayoutCreate(&lt->lb, cuda_type(p->in), (uint64_t)p->K, (uint64_t)p->M, p->K));
	CB(cublasLtMatrixLayoutCreate(&lt->lc, cuda_type(p->out), (uint64_t)p->N, (uint64_t)p->M, p->N));
	cublasLtMatmulPreference_t pref;
	CB(cublasLtMatmulPreferenceCreate(&pref));
	uint64_t ws = WORKSPACE_BYTES;
	CB(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws));
	/* f32 accumulation throughout: no algorithm that sums split-K partials in C's dtype (bf16) */
	uint32_t schemes = CUBLASLT_REDUCTION_SCHEME_MASK & ~(uint32_t)CUBLASLT_REDUCTION_SCHEME_OUTPUT_TYPE;
	CB(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK, &schemes,
	                                        sizeof schemes));
	lt->nres = 0;
	cublasStatus_t s =
		cublasLtMatmulAlgoGetHeuristic(lt->h, lt->op, lt->la, lt->lb, lt->lc, lt->lc, pref, want, lt->res, &lt->nres);
	if (s != CUBLAS_STATUS_SUCCESS)
		lt->nres = 0;
	lt->status = (int)s;
	cublasLtMatmulPreferenceDestroy(pref);
	lt->best = 0;
}

static void lt_free(Lt *lt)
{
	cublasLtMatrixLayoutDestroy(lt->la);
	cublasLtMatrixLayoutDestroy(lt->lb);
	cublasLtMatrixLayoutDestroy(lt->lc);
	cublasLtMatmulDescDestroy(lt->op);
}

static cublasStatus_t lt_run(const Lt *lt, const Problem *p, int algo, CUstream st)
{
	return cublasLtMatmul(lt->h, lt->op, &p->alpha, (const void *)p->B, lt->la, (const void *)p->A, lt->lb, &p->beta,
	                      (const void *)p->C[2], lt->lc, (void *)p->C[2], lt->lc, &lt->res[algo].algo, (void *)p->ws,
	                      WORKSPACE_BYTES, (cudaStream_t)st);
}

/* each algorithm the heuristic returned: 3 launches, then 20 timed together; the fastest wins */
static void lt_pick(Lt *lt, const Problem *p, CUstream st)
{
	CUevent a, b;
	CU(cuEventCreate(&a, 0));
	CU(cuEventCreate(&b, 0));
	float best = -1;
	printf("cuBLASLt: %d algorithms from the heuristic (workspace %u MiB):", lt->nres, WORKSPACE_BYTES >> 20);
	for (int i = 0; i < lt->nres; i++) {
		if (lt->res[i].state != CUBLAS_STATUS_SUCCESS || lt_run(lt, p, i, st) != CUBLAS_STATUS_SUCCESS) {
			printf(" #%d refused", i);
			continue;
		}
		for (int w = 0; w < 2; w++)
			lt_run(lt, p, i, st);
		CU(cuEventRecord(a, st));
		for (int r = 0; r < 20; r++)
			lt_run(lt, p, i, st);
		CU(cuEventRecord(b, st));
		CU(cuEventSynchronize(b));
		float ms;
		CU(cuEventElapsedTime(&ms, a, b));
		printf(" #%d %.1f us", i, ms * 1000 / 20);
		if (best < 0 || ms < best) {
			best = ms;
			lt->best = i;
		}
	}
	printf("; timed below: #%d\n", lt->best);
	cuEventDestroy(a);
	cuEventDestroy(b);
	if (best < 0)
		lt->nres = 0;
}

/* ---- checks ---- */

static double out_value(const unsigned char *c, size_t i, gb_dtype t)
{
	if (t == GB_F32) {
		float f;
		memcpy(&f, c + 4 * i, 4);
		return f;
	}
	uint16_t h;
	memcpy(&h, c + 2 * i, 2);
	return gb_from_16(h, t);
}

/* the host's exact sum rounded to C's dtype, as bytes */
static void encode_out(double v, gb_dtype t, unsigned char *dst)
{
	if (t == GB_F32) {
		float f = (float)v;
		memcpy(dst, &f, 4);
	} else {
		uint16_t h = gb_to_16((float)v, t); /* the sum is exact in f32 (integer data) */
		memcpy(dst, &h, 2);
	}
}

/* elements that differ bit for bit; the first few printed */
static long long compare_bits(const char *what, const unsigned char *x, const unsigned char *y, long long M,
                              long long N, gb_dtype t)
{
	int es = gb_dtype_bytes(t);
	long long bad = 0;
	for (long long i = 0; i < M * N; i++)
		if (memcmp(x + i * es, y + i * es, (size_t)es)) {
			if (bad < 4)
				printf("  %s: C[%lld, %lld] = %.9g, expected %.9g\n", what, i / N, i % N, out_value(x, (size_t)i, t),
				       out_value(y, (size_t)i, t));
			bad++;
		}
	return bad;
}

/* max |x - y| / max |y|; NaN when x holds a NaN (an element never written) */
static double rel_error(const unsigned char *x, const unsigned char *y, long long n, gb_dtype t, double *maxy)
{
	double md = 0, my = 0;
	for (long long i = 0; i < n; i++) {
		double a = out_value(x, (size_t)i, t), b = out_value(y, (size_t)i, t);
		if (a != a || b != b)
			return NAN;
		if (fabs(a - b) > md)
			md = fabs(a - b);
		if (fabs(b) > my)
			my = fabs(b);
	}
	*maxy = my;
	return my > 0 ? md / my : md;
}

/* ---- the fused epilogues' checks (the header comment states the tolerance) ---- */

/* one unit in the last place of |v| in a 16-bit dtype (bf16: 8 significant bits, f16: 11) */
static double ulp16(double v, gb_dtype t)
{
	int e, bits = t == GB_BF16 ? 8 : 11;
	double tiny = ldexp(1.0, t == GB_BF16 ? -133 : -24); /* the smallest subnormal */
	if (v == 0)
		return tiny;
	frexp(fabs(v), &e); /* |v| in [2^(e-1), 2^e) */
	double u = ldexp(1.0, e - bits);
	return u > tiny ? u : tiny;
}

/* the host's value of one element: the f64 sum acc, the bias of its column, C's old value */
static double epi_apply(const Problem *p, double acc, double bias, double c0)
{
	double x = acc + bias;
	switch (p->epi) {
	case EPI_RELU_BIAS: return x > 0 ? x : 0;
	case EPI_GELU_BIAS: return 0.5 * x * (1 + tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)));
	case EPI_SILU_BIAS: return x / (1 + exp(-x));
	case EPI_ALPHA_BETA: return (double)p->alpha * acc + (double)p->beta * c0;
	case EPI_SCALE_AMAX: return (double)p->scale * acc;
	default: return p->epi == EPI_NONE ? acc : x;
	}
}

static double epi_tol(const Problem *p, double a, double b, double S)
{
	if (p->out == GB_F32)
		return 1e-5 * fabs(b) + 1e-6 * sqrt((double)p->K) * S;
	double m = fabs(a) > fabs(b) ? fabs(a) : fabs(b);
	double t = 2 * ulp16(m, p->out) + (double)p->K * ldexp(1.0, -24) * S;
	return p->epi == EPI_GELU_BIAS ? t + S * ldexp(1.0, -10) : t;
}

/* element by element within epi_tol; the largest error printed; the count over it returned */
static long long compare_tol(const char *what, const char *against, const unsigned char *x, const unsigned char *y,
                             const Problem *p)
{
	long long n = p->M * p->N, bad = 0, at = 0;
	double S = 0, me = 0, worst = 0;
	for (long long i = 0; i < n; i++) {
		double b = fabs(out_value(y, (size_t)i, p->out));
		S = b > S ? b : S;
	}
	for (long long i = 0; i < n; i++) {
		double a = out_value(x, (size_t)i, p->out), b = out_value(y, (size_t)i, p->out);
		double e = a == b ? 0 : fabs(a - b), tol = epi_tol(p, a, b, S);
		if (!(e <= tol)) {
			if (bad < 4)
				printf("  %s: C[%lld, %lld] = %.9g, %s %.9g, tolerance %.3g\n", what, i / p->N, i % p->N, a, against,
				       b, tol);
			bad++;
		}
		if (e == e && e > me)
			me = e;
		if (e == e && e / tol > worst) {
			worst = e / tol;
			at = i;
		}
	}
	printf("check %s: max |C - %s| = %.3g (max |%s| %.4g); the worst element C[%lld, %lld] at %.3g of its tolerance; "
	       "%lld of %lld over it\n",
	       what, against, me, against, S, at / p->N, at % p->N, worst, bad, n);
	return bad;
}

/* the epilogue's inputs: the bias in C's dtype (host and device) for the bias
 * epilogues, C's old values (f32, host) for alpha_beta */
static void epi_inputs(const Options *o, Problem *p, uint16_t **hbias, float **hc0)
{
	size_t nc = (size_t)(p->M * p->N);
	if (epi_has_bias(p->epi)) {
		*hbias = malloc((size_t)p->N * 2);
		if (!*hbias) {
			fprintf(stderr, "gemm_bench: out of host memory\n");
			exit(3);
		}
		gb_fill(*hbias, (size_t)p->N, p->out, o->integers, o->seed, 2);
		CU(cuMemAlloc(&p->bias, (size_t)p->N * 2));
		CU(cuMemcpyHtoD(p->bias, *hbias, (size_t)p->N * 2));
	}
	if (p->epi == EPI_SCALE_AMAX) { /* [scale_a, scale_b] and one f32 amax for each side */
		float sc[2] = {o->scale_a, o->scale_b};
		p->scale = o->scale_a * o->scale_b;
		for (int i = 0; i < 2; i++) {
			CU(cuMemAlloc(&p->scales[i], 4));
			CU(cuMemcpyHtoD(p->scales[i], &sc[i], 4));
		}
		CU(cuMemAlloc(&p->amax_tile, 4));
		CU(cuMemAlloc(&p->amax_lt, 4));
		p->lt_mode = LT_SCALES_AMAX;
	}
	if (p->epi == EPI_ALPHA_BETA) { /* the fill of a bf16 A, widened */
		uint16_t *t16 = malloc(nc * 2);
		*hc0 = malloc(nc * sizeof(float));
		if (!t16 || !*hc0) {
			fprintf(stderr, "gemm_bench: out of host memory\n");
			exit(3);
		}
		gb_fill(t16, nc, GB_BF16, o->integers, o->seed, 3);
		for (size_t i = 0; i < nc; i++)
			(*hc0)[i] = gb_from_16(t16[i], GB_BF16);
		free(t16);
	}
}

static void guard_pattern(unsigned char *g, int side)
{
	for (int i = 0; i < GUARD; i++)
		g[i] = (unsigned char)(0xa5 ^ (i * 7) ^ (side * 0x3c));
}

/* ---- one size ---- */

enum { IMPL_TILE, IMPL_EX, IMPL_LT, NIMPL };
static const char *impl_name[NIMPL] = {"tilepx", "cublasGemmEx", "cublasLt"};

static int cmp_float(const void *a, const void *b)
{
	float x = *(const float *)a, y = *(const float *)b;
	return (x > y) - (x < y);
}

/* scale_amax: each amax after the check launch (both zeroed before it),
 * against the host's max |scale * acc| (f32) where it ran: tilepx's bit for
 * bit on integer data, within 1e-5 relative on random data; cuBLASLt's (its
 * AMAX_D_POINTER, else max |C| of its bf16 output: lt_cmax), and tilepx's
 * against cuBLASLt's, within 2^-7 relative (a bf16 rounding, 2^-9, and the
 * FP8 tensor core's accumulator summing in another order). 0: tilepx's failed. */
static int amax_check(const Problem *p, int integers, int on_tile, int on_lt, double hamax, double lt_cmax)
{
	float a[2] = {0, (float)lt_cmax};
	if (on_tile)
		CU(cuMemcpyDtoH(&a[0], p->amax_tile, 4));
	if (on_lt && p->lt_mode == LT_SCALES_AMAX)
		CU(cuMemcpyDtoH(&a[1], p->amax_lt, 4));
	const char *ltn = p->lt_mode == LT_SCALES_AMAX ? "cublasLt" : "max |cublasLt's C|";
	int ok = 1;
	for (int i = 0; i < 2 && hamax >= 0; i++) {
		if (!(i ? on_lt : on_tile))
			continue;
		double e = fabs(a[i] - (float)hamax), lim = i ? ldexp(hamax, -7) : integers ? 0 : 1e-5 * hamax;
		const char *rule = i ? "within 2^-7 relative" : integers ? "bit for bit" : "within 1e-5 relative";
		if (!(e <= lim)) {
			fail("%s: amax %.9g, the host's %.9g (%s)", i ? ltn : "tilepx", a[i], (float)hamax, rule);
			ok &= i;
		} else
			printf("check %s: amax %.9g, the host's %.9g: %s\n", i ? ltn : "tilepx", a[i], (float)hamax,
			       e == 0 ? "bit for bit" : rule);
	}
	if (on_tile && on_lt) {
		double e = fabs((double)a[0] - a[1]);
		if (!(e <= ldexp(fabs(a[1]), -7))) {
			fail("tilepx: amax %.9g, %s %.9g: past 2^-7 relative", a[0], ltn, a[1]);
			ok = 0;
		} else
			printf("check tilepx: amax %.9g, %s %.9g: %s\n", a[0], ltn, a[1],
			       e == 0 ? "bit for bit" : "within 2^-7 relative");
	}
	return ok;
}

static void run_size(const Options *o, Tile *t, cublasHandle_t cb, Lt *lt, CUstream st, const Nvml *nv, long long M,
                     long long N, long long K)
{
	Problem p = {.M = M, .N = N, .K = K, .epi = o->epi, .alpha = 1, .beta = 0};
	if (p.epi == EPI_ALPHA_BETA) {
		p.alpha = o->alpha;
		p.beta = o->beta;
	}
	/* the layout and dtypes: the options', else the kernel's */
	int have_kernel = t && t->loaded;
	p.b_nk = o->b_nk >= 0 ? o->b_nk : have_kernel ? t->roles.b_nk : 0;
	p.in = o->in != GB_NONE ? o->in : have_kernel ? t->roles.ab : GB_F16;
	p.out = o->out != GB_NONE ? o->out : have_kernel ? t->roles.out : GB_F32;
	double flops = 2.0 * (double)M * (double)N * (double)K;
	printf("\n== %lldx%lldx%lld (M x N x K): %s x %s -> %s, f32 accumulate; A [M, K], B %s, C [M, N], row-major; data "
	       "%s, seed %llu\n",
	       M, N, K, gb_dtype_name(p.in), gb_dtype_name(p.in), gb_dtype_name(p.out), p.b_nk ? "[N, K]" : "[K, N]",
	       o->integers ? "integers in [-2, 2]" : "uniform in [-1, 1]", o->seed);
	if (o->integers && K >= GB_INT_K_MAX) {
		fail("%lldx%lldx%lld: K >= 2^22: integer data would not stay exact in f32", M, N, K);
		return;
	}
	int fp8 = p.in == GB_E4M3, bias_on = epi_has_bias(p.epi);
	if (p.epi != EPI_NONE) {
		printf("epilogue %s", epi_name[p.epi]);
		if (p.epi == EPI_ALPHA_BETA)
			printf(": alpha %.9g, beta %.9g, C's old values seeded (stream 3)", p.alpha, p.beta);
		if (bias_on)
			printf(": bias [%lld] %s, seeded (stream 2)", N, gb_dtype_name(p.out));
		if (p.epi == EPI_SCALE_AMAX)
			printf(": C = bf16(scale_a scale_b A B), scale_a %.9g, scale_b %.9g, and amax = max |scale_a scale_b A B| "
			       "(cuBLASLt: A_SCALE_POINTER, B_SCALE_POINTER, AMAX_D_POINTER)",
			       o->scale_a, o->scale_b);
		printf("\n");
	}
	if (p.epi == EPI_SCALE_AMAX && (!fp8 || p.out != GB_BF16)) {
		fail("--epilogue scale_amax needs e4m3 inputs and a bf16 C");
		return;
	}
	if ((bias_on && p.out == GB_F32) || (p.epi == EPI_ALPHA_BETA && p.out != GB_F32) ||
	    (fp8 && p.epi != EPI_NONE && p.epi != EPI_SCALE_AMAX)) {
		fail("--epilogue %s needs %s inputs and %s C", epi_name[p.epi], fp8 ? "f16 or bf16" : "16-bit",
		     bias_on ? "a 16-bit" : "an f32");
		return;
	}
	if (fp8 && o->integers && K > GB_FP8_INT_K_MAX) { /* a SKIP, not a FAIL: bench/gemm.sh runs every size */
		printf("SKIP %lldx%lldx%lld: K > %d: FP8 integer sums could pass the tensor core's FP8 accumulator "
		       "precision, so no bit-exact check\n",
		       M, N, K, GB_FP8_INT_K_MAX);
		return;
	}
	size_t na = (size_t)(M * K), nb = (size_t)(K * N), nc = (size_t)(M * N);
	int ib = gb_dtype_bytes(p.in), ob = gb_dtype_bytes(p.out);
	uint16_t *ha = malloc(na * 2), *hb = malloc(nb * 2);
	unsigned char *hc[NIMPL];
	for (int i = 0; i < NIMPL; i++)
		hc[i] = malloc(nc * (size_t)ob);
	if (!ha || !hb || !hc[0] || !hc[1] || !hc[2]) {
		fprintf(stderr, "gemm_bench: out of host memory\n");
		exit(3);
	}
	gb_fill(ha, na, p.in, o->integers, o->seed, 0);
	gb_fill(hb, nb, p.in, o->integers, o->seed, 1);
	CU(cuMemAlloc(&p.A, na * (size_t)ib));
	CU(cuMemAlloc(&p.B, nb * (size_t)ib));
	CU(cuMemAlloc(&p.ws, WORKSPACE_BYTES));
	uint16_t *hbias = NULL;
	float *hc0 = NULL;
	epi_inputs(o, &p, &hbias, &hc0);
	size_t zwords = o->zero_c ? nc : 0; /* split-K: C = 0 before each tilepx launch */
	if (o->zero_c && (ob != 4 || p.epi != EPI_NONE)) {
		fail("--zero-c needs an f32 C and no epilogue");
		return;
	}
	if (o->zero_c)
		printf("tilepx's C is zeroed before each of its launches (cuMemsetD32Async, counted in its time)\n");
	for (int i = 0; i < NIMPL; i++) {
		CU(cuMemAlloc(&p.Craw[i], nc * (size_t)ob + 2 * GUARD));
		p.C[i] = p.Craw[i] + GUARD;
	}
	if (ib == 1) { /* e4m3 codes: one byte each on the device */
		unsigned char *pa = malloc(na + 1), *pb = malloc(nb + 1);
		if (!pa || !pb) {
			fprintf(stderr, "gemm_bench: out of host memory\n");
			exit(3);
		}
		for (size_t i = 0; i < na; i++)
			pa[i] = (unsigned char)ha[i];
		for (size_t i = 0; i < nb; i++)
			pb[i] = (unsigned char)hb[i];
		CU(cuMemcpyHtoD(p.A, pa, na));
		CU(cuMemcpyHtoD(p.B, pb, nb));
		free(pa);
		free(pb);
	} else {
		CU(cuMemcpyHtoD(p.A, ha, na * 2));
		CU(cuMemcpyHtoD(p.B, hb, nb * 2));
	}

	/* which implementations run */
	int on[NIMPL] = {0, !fp8 && !bias_on, 1};
	/* the implementation the others are checked against: cublasGemmEx, which has no FP8 and no bias epilogue */
	int ref = fp8 || bias_on ? IMPL_LT : IMPL_EX;
	if (bias_on)
		printf("SKIP cublasGemmEx: no bias epilogue; cuBLASLt's fused epilogue is the comparison\n");
	if (fp8)
		printf("SKIP cublasGemmEx: no FP8 inputs; cuBLASLt is the comparison (fast accumulation %s)\n",
		       o->fp8_fast_accum ? "on" : "off");
	/* CUtensorMap is 128-byte aligned, more than calloc promises */
	size_t tb_size = (sizeof(Bound) + 127) / 128 * 128;
	Bound *tb = aligned_alloc(128, tb_size);
	if (!tb) {
		fprintf(stderr, "gemm_bench: out of host memory\n");
		exit(3);
	}
	memset(tb, 0, tb_size);
	char label[NIMPL][256];
	snprintf(label[IMPL_EX], sizeof label[0], "cublasGemmEx (CUBLAS_GEMM_DEFAULT)");
	if (have_kernel) {
		char why[600];
		const char *no = tile_bind(t, o, M, N, K, p.b_nk, p.in, p.out, p.A, p.B, p.C[IMPL_TILE],
		                           p.epi == EPI_SCALE_AMAX ? p.amax_tile : p.bias, tb, why, sizeof why);
		if (no)
			printf("SKIP tilepx %s at %lldx%lldx%lld: %s\n", t->k.name, M, N, K, no);
		else {
			on[IMPL_TILE] = 1;
			snprintf(label[IMPL_TILE], sizeof label[0], "tilepx %s (grid %lld x %lld, %d threads%s)", t->k.name,
			         tb->L.grid[0], tb->L.grid[1] ? tb->L.grid[1] : 1, tb->L.block, tb->L.cluster[0] ? ", cluster" : "");
		}
	} else if (t) {
		printf("SKIP tilepx: %s\n", t->why);
	}
	if (fp8 && !p.b_nk) {
		printf("SKIP cublasLt: its FP8 GEMMs are TN only (B [N, K])\n");
		on[IMPL_LT] = 0;
	} else {
		lt_setup(lt, &p, o->lt_algos, o->fp8_fast_accum);
		while (p.epi == EPI_SCALE_AMAX && !lt->nres && p.lt_mode > LT_ALPHA) { /* the next way to say it */
			printf("SKIP cublasLt with %s: no algorithm for a bf16 D (status %d); next: %s\n",
			       lt_mode_name[p.lt_mode], lt->status, lt_mode_name[p.lt_mode - 1]);
			lt_free(lt);
			if (--p.lt_mode == LT_ALPHA)
				p.alpha = p.scale;
			lt_setup(lt, &p, o->lt_algos, o->fp8_fast_accum);
		}
		if (lt->nres)
			lt_pick(lt, &p, st);
	}
	if (on[IMPL_LT] && !lt->nres) {
		/* every size and dtype here is one cuBLASLt runs: no algorithm means arguments it refuses */
		fail("cublasLt: the heuristic returned no usable algorithm (status %d)", lt->status);
		on[IMPL_LT] = 0;
	}
	snprintf(label[IMPL_LT], sizeof label[0], "cublasLt%s%s (heuristic #%d of %d)",
	         bias_on ? " epilogue " : p.epi == EPI_SCALE_AMAX ? " with " : "",
	         bias_on ? epi_name[p.epi] : p.epi == EPI_SCALE_AMAX ? lt_mode_name[p.lt_mode] : "", lt->best, lt->nres);

	/* the check launch: C full of NaN bytes, guards around it */
	unsigned char guard[2][GUARD], got[GUARD];
	for (int i = 0; i < NIMPL; i++) {
		if (hc0) /* C = alpha A B + beta C reads it */
			CU(cuMemcpyHtoD(p.C[i], hc0, nc * sizeof(float)));
		else
			CU(cuMemsetD8(p.C[i], 0xff, nc * (size_t)ob));
		for (int s = 0; s < 2; s++) {
			guard_pattern(guard[s], s);
			CU(cuMemcpyHtoD(s ? p.C[i] + nc * (size_t)ob : p.Craw[i], guard[s], GUARD));
		}
	}
	if (p.epi == EPI_SCALE_AMAX) { /* both amaxes from 0 (tilepx's combines with its old value) */
		float zero = 0;
		CU(cuMemcpyHtoD(p.amax_tile, &zero, 4));
		CU(cuMemcpyHtoD(p.amax_lt, &zero, 4));
	}
	if (on[IMPL_TILE]) {
		CUresult r = tile_run(tb, st, p.C[IMPL_TILE], zwords);
		if (r == CUDA_SUCCESS)
			r = cuStreamSynchronize(st);
		if (r != CUDA_SUCCESS) {
			const char *s = NULL;
			cuGetErrorString(r, &s);
			fail("tilepx %s: launch: %s", t->k.name, s ? s : "?");
			exit(3); /* the context is lost after a fault */
		}
	}
	if (on[IMPL_EX])
		CB(gemm_ex(cb, &p));
	if (on[IMPL_LT])
		CB(lt_run(lt, &p, lt->best, st));
	CU(cuStreamSynchronize(st));
	for (int i = 0; i < NIMPL; i++)
		if (on[i]) {
			CU(cuMemcpyDtoH(hc[i], p.C[i], nc * (size_t)ob));
			for (int s = 0; s < 2; s++) {
				CU(cuMemcpyDtoH(got, s ? p.C[i] + nc * (size_t)ob : p.Craw[i], GUARD));
				if (memcmp(got, guard[s], GUARD)) {
					fail("%s: a guard byte %s C was written", impl_name[i], s ? "after" : "before");
					on[i] = 0;
				}
			}
		}
	int host = M <= o->host_max && N <= o->host_max && K <= o->host_max;
	unsigned char *href = NULL;
	double hamax = -1; /* scale_amax: the host's max |scale acc| (f32 products) */
	if (host) { /* the dense host GEMM, every element */
		float *fa = malloc(na * sizeof(float)), *fb = malloc(nb * sizeof(float));
		double *c = malloc(nc * sizeof(double));
		href = malloc(nc * (size_t)ob);
		if (!fa || !fb || !c || !href) {
			fprintf(stderr, "gemm_bench: out of host memory\n");
			exit(3);
		}
		for (size_t i = 0; i < na; i++)
			fa[i] = gb_from_16(ha[i], p.in);
		/* B as [N, K] either way: the host's dot products then read memory in order */
		for (long long kk = 0; kk < K; kk++)
			for (long long j = 0; j < N; j++)
				fb[j * K + kk] = gb_from_16(hb[p.b_nk ? j * K + kk : kk * N + j], p.in);
		long nproc = sysconf(_SC_NPROCESSORS_ONLN);
		gb_host_gemm(fa, fb, c, M, N, K, 1, nproc > 0 ? (int)nproc : 1);
		for (size_t i = 0; i < nc; i++)
			encode_out(epi_apply(&p, c[i], hbias ? gb_from_16(hbias[i % (size_t)N], p.out) : 0, hc0 ? hc0[i] : 0),
			           p.out, href + i * (size_t)ob);
		if (p.epi == EPI_SCALE_AMAX)
			for (size_t i = 0; i < nc; i++) {
				double v = fabs((double)((float)c[i] * p.scale));
				hamax = v > hamax ? v : hamax;
			}
		free(fa);
		free(fb);
		free(c);
	}
	double tol = o->tol >= 0 ? o->tol : p.out == GB_F32 ? 1e-3 : 1e-2;
	for (int i = 0; i < NIMPL; i++) {
		if (!on[i])
			continue;
		if (p.epi == EPI_SILU_BIAS) { /* Lt ran its bias epilogue (timing only): the host checks ours */
			long long bad = i == IMPL_LT || !host ? 0 : compare_tol(impl_name[i], "host", hc[i], href, &p);
			if (!host && i != IMPL_LT) {
				printf("check %s: not checked (no host GEMM above --host-max; cuBLASLt has no SiLU)\n", impl_name[i]);
			} else if (bad) {
				fail("%s: %lld of %lld elements past the tolerance of the host's", impl_name[i], bad, M * N);
				on[i] = 0;
			} else if (i == IMPL_LT) {
				printf("check cublasLt: not compared (it ran CUBLASLT_EPILOGUE_BIAS: no SiLU epilogue)\n");
			}
		} else if (o->integers && p.epi != EPI_GELU_BIAS) {
			/* bit for bit: against the host everywhere it ran, and against gemmEx (cuBLASLt's epilogue) */
			if (host) {
				long long bad = compare_bits(impl_name[i], hc[i], href, M, N, p.out);
				if (bad) {
					fail("%s: %lld of %lld elements differ from the host GEMM", impl_name[i], bad, M * N);
					on[i] = 0;
				} else
					printf("check %s: all %lld elements equal the host GEMM bit for bit\n", impl_name[i], M * N);
			}
			if (i != ref && on[ref] && on[i]) {
				long long bad = compare_bits(impl_name[i], hc[i], hc[ref], M, N, p.out);
				if (bad) {
					fail("%s: %lld of %lld elements differ from %s's", impl_name[i], bad, M * N, impl_name[ref]);
					on[i] = 0;
				} else
					printf("check %s: all %lld elements equal %s's bit for bit\n", impl_name[i], M * N,
					       impl_name[ref]);
			}
		} else if (p.epi != EPI_NONE && p.epi != EPI_SCALE_AMAX) { /* element by element within the stated tolerance */
			if (host) { /* integer data (GELU): a check; random data: information */
				long long bad = compare_tol(impl_name[i], "host", hc[i], href, &p);
				if (bad && o->integers) {
					fail("%s: %lld of %lld elements past the tolerance of the host's", impl_name[i], bad, M * N);
					on[i] = 0;
				}
			}
			if (i == ref || !on[ref] || !on[i])
				continue;
			long long bad = compare_tol(impl_name[i], ref == IMPL_EX ? "gemmEx" : "Lt", hc[i], hc[ref], &p);
			if (bad) {
				fail("%s: %lld of %lld elements past the tolerance of %s's", impl_name[i], bad, M * N, impl_name[ref]);
				on[i] = 0;
			}
		} else {
			double my = 0;
			if (host) {
				double e = rel_error(hc[i], href, (long long)nc, p.out, &my);
				printf("check %s: max |C - host (f64 sums)| / max |host| = %.3g (information)\n", impl_name[i], e);
			}
			if (i == ref) {
				double e = rel_error(hc[i], hc[i], (long long)nc, p.out, &my);
				if (e != e) {
					fail("%s: C holds a NaN", impl_name[i]);
					on[i] = 0;
				}
				continue;
			}
			if (!on[ref]) /* no comparison (FP8 with B [K, N]): the host check above only */
				continue;
			const char *rn = ref == IMPL_EX ? "gemmEx" : "Lt";
			double e = rel_error(hc[i], hc[ref], (long long)nc, p.out, &my);
			if (!(e <= tol)) {
				fail("%s: max |C - %s| / max |%s| = %.3g (max |%s| %.4g), over the tolerance %.1e", impl_name[i], rn,
				     rn, e, rn, my, tol);
				on[i] = 0;
			} else
				printf("check %s: max |C - %s| / max |%s| = %.3g (max |%s| %.4g) <= %.1e\n", impl_name[i], rn, rn, e,
				       rn, my, tol);
		}
	}
	free(href);
	if (p.epi == EPI_SCALE_AMAX) {
		double lt_cmax = 0; /* max |C| of cuBLASLt's output: its amax when it takes none */
		for (size_t i = 0; on[IMPL_LT] && i < nc; i++) {
			double v = fabs(out_value(hc[IMPL_LT], i, p.out));
			lt_cmax = v > lt_cmax ? v : lt_cmax;
		}
		if (!amax_check(&p, o->integers, on[IMPL_TILE], on[IMPL_LT], hamax, lt_cmax))
			on[IMPL_TILE] = 0;
	}

	/* timing: warm-up, then rounds of one launch each, every launch between its own events */
	int R = o->rounds;
	if (R > 0) {
		CUevent *ev = malloc(sizeof(CUevent) * (size_t)R * NIMPL * 2);
		float *ms[NIMPL];
		for (int i = 0; i < NIMPL; i++)
			ms[i] = malloc(sizeof(float) * (size_t)R);
		for (int i = 0; i < R * NIMPL * 2; i++)
			CU(cuEventCreate(&ev[i], 0));
		for (int w = 0; w < o->warmup; w++) {
			if (on[IMPL_TILE])
				CU(tile_run(tb, st, p.C[IMPL_TILE], zwords));
			if (on[IMPL_EX])
				CB(gemm_ex(cb, &p));
			if (on[IMPL_LT])
				CB(lt_run(lt, &p, lt->best, st));
		}
		CU(cuStreamSynchronize(st));
		nvml_log(nv, "after the warm-up");
		Sampler sp;
		sampler_start(&sp, nv);
		for (int r = 0; r < R; r++)
			for (int i = 0; i < NIMPL; i++) {
				if (!on[i])
					continue;
				CUevent *e = &ev[(r * NIMPL + i) * 2];
				CU(cuEventRecord(e[0], st));
				if (i == IMPL_TILE)
					CU(tile_run(tb, st, p.C[IMPL_TILE], zwords));
				else if (i == IMPL_EX)
					CB(gemm_ex(cb, &p));
				else
					CB(lt_run(lt, &p, lt->best, st));
				CU(cuEventRecord(e[1], st));
			}
		CU(cuStreamSynchronize(st));
		sampler_stop(&sp);
		nvml_log(nv, "after the timed rounds");
		double best_cublas = 0, best_cublas_peak = 0, med[NIMPL] = {0}, peak[NIMPL] = {0};
		printf("%-60s %10s %10s %14s %12s\n", "implementation", "median us", "best us", "median TFLOPS",
		       "best TFLOPS");
		for (int i = 0; i < NIMPL; i++) {
			if (!on[i])
				continue;
			for (int r = 0; r < R; r++)
				CU(cuEventElapsedTime(&ms[i][r], ev[(r * NIMPL + i) * 2], ev[(r * NIMPL + i) * 2 + 1]));
			qsort(ms[i], (size_t)R, sizeof(float), cmp_float);
			double mid = R % 2 ? ms[i][R / 2] : 0.5 * (ms[i][R / 2 - 1] + ms[i][R / 2]);
			med[i] = flops / (mid * 1e9);
			peak[i] = flops / (ms[i][0] * 1e9);
			printf("%-60s %10.2f %10.2f %14.1f %12.1f\n", label[i], mid * 1000, ms[i][0] * 1000, med[i], peak[i]);
			if (i != IMPL_TILE) {
				if (med[i] > best_cublas)
					best_cublas = med[i];
				if (peak[i] > best_cublas_peak)
					best_cublas_peak = peak[i];
			}
		}
		printf("BENCH %lldx%lldx%lld %s->%s B%s %s%s%s: %d rounds;", M, N, K, gb_dtype_name(p.in), gb_dtype_name(p.out),
		       p.b_nk ? "[N,K]" : "[K,N]", o->integers ? "int" : "random", p.epi ? " epilogue=" : "",
		       p.epi ? epi_name[p.epi] : "", R);
		for (int i = 0; i < NIMPL; i++)
			if (on[i])
				printf(" %s %.1f", impl_name[i], med[i]);
		printf(" TFLOPS (median)");
		if (have_kernel && !on[IMPL_TILE])
			printf("; tilepx not timed (skipped or failed its check, above)");
		if (on[IMPL_TILE] && best_cublas > 0)
			printf("; tilepx / best cuBLAS = %.3f (median), %.3f (best)", med[IMPL_TILE] / best_cublas,
			       peak[IMPL_TILE] / best_cublas_peak);
		printf("\n");
		for (int i = 0; i < R * NIMPL * 2; i++)
			cuEventDestroy(ev[i]);
		free(ev);
		for (int i = 0; i < NIMPL; i++)
			free(ms[i]);
	}
	if (lt->op)
		lt_free(lt);
	lt->op = NULL;
	free(tb);
	cuMemFree(p.A);
	cuMemFree(p.B);
	cuMemFree(p.ws);
	if (p.bias)
		cuMemFree(p.bias);
	if (p.scales[0]) {
		cuMemFree(p.scales[0]);
		cuMemFree(p.scales[1]);
		cuMemFree(p.amax_tile);
		cuMemFree(p.amax_lt);
	}
	free(hbias);
	free(hc0);
	for (int i = 0; i < NIMPL; i++) {
		cuMemFree(p.Craw[i]);
		free(hc[i]);
	}
	free(ha);
	free(hb);
}

/* ---- options ---- */

static int parse_count(const char *s, long long lo, long long hi, long long *v)
{
	char *end;
	long long x = strtoll(s, &end, 10);
	if (end == s || *end || x < lo || x > hi)
		return 0;
	*v = x;
	return 1;
}

static int parse_names(const char *s, Options *o)
{
	const char *eq = strchr(s, '='), *st = eq ? strchr(eq, '*') : NULL;
	if (!st || eq == s || st == eq + 1 || !st[1] || eq - s >= 64 || st - eq - 1 >= 64 || strlen(st + 1) >= 64)
		return 0;
	snprintf(o->cn, sizeof o->cn, "%.*s", (int)(eq - s), s);
	snprintf(o->an, sizeof o->an, "%.*s", (int)(st - eq - 1), eq + 1);
	snprintf(o->bn, sizeof o->bn, "%s", st + 1);
	return 1;
}

/* --auto: the family's kernel and window for M x N x K on sms SMs (tilepx_gemm_choose) */
static int auto_pick(Options *o, long long M, long long N, long long K, int sms)
{
	const char *in = o->in == GB_NONE ? "f16" : gb_dtype_name(o->in);
	const char *out = o->out == GB_NONE ? "f32" : gb_dtype_name(o->out);
	tilepx_gemm_choice c;
	if (tilepx_gemm_choose(M, N, K, in, out, sms, &c)) {
		fprintf(stderr, "gemm_bench: --auto: %s\n", c.why);
		return 0;
	}
	char window[32];
	snprintf(window, sizeof window, c.linear ? "P=%d" : "P=%d Q=%d", c.p, c.q); /* a linear walk takes no Q */
	printf("auto: %lldx%lldx%lld %s->%s on %d SMs: %s %s; %s\n", M, N, K, in, out, sms, c.tile, window, c.why);
	o->zero_c |= c.zero_c;
	o->tile = c.tile;
	o->kernel = c.kernel;
	int has_p = 0, has_q = 0;
	for (int i = 0; i < o->nsets; i++) {
		has_p |= !strncmp(o->sets[i], "P=", 2);
		has_q |= !strncmp(o->sets[i], "Q=", 2);
	}
	snprintf(o->auto_sets[0], sizeof o->auto_sets[0], "P=%d", c.p);
	snprintf(o->auto_sets[1], sizeof o->auto_sets[1], "Q=%d", c.q);
	if (!has_p && o->nsets < 32)
		o->sets[o->nsets++] = o->auto_sets[0];
	if (!has_q && !c.linear && o->nsets < 32) /* a linear walk takes no Q */
		o->sets[o->nsets++] = o->auto_sets[1];
	return 1;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0); /* a log cut short by a timeout still has every finished line */
	Options o = {.b_nk = -1, .seed = 1, .warmup = 20, .rounds = 200, .host_max = 1024, .lt_algos = 8, .tol = -1,
	             .fp8_fast_accum = 1, .alpha = 1.25f, .beta = -0.5f,
	             .scale_a = 0.5f, .scale_b = 4.0f};
	strcpy(o.biasn, "BIAS");
	strcpy(o.an, "A");
	strcpy(o.bn, "B");
	strcpy(o.cn, "C");
	long long size[3];
	int nsize = 0, issue = 0;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		long long x;
#define NEED_VALUE                                                              \
	do {                                                                    \
		if (!v) {                                                       \
			fprintf(stderr, "gemm_bench: %s needs a value\n%s", a, usage); \
			return 2;                                               \
		}                                                               \
		i++;                                                            \
	} while (0)
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			fputs(usage, stdout);
			return 0;
		} else if (!strcmp(a, "--issue-sizes")) {
			issue = 1;
		} else if (!strcmp(a, "--tile")) {
			NEED_VALUE;
			o.tile = v;
		} else if (!strcmp(a, "--kernel")) {
			NEED_VALUE;
			o.kernel = v;
		} else if (!strcmp(a, "--names")) {
			NEED_VALUE;
			if (!parse_names(v, &o))
				goto bad;
		} else if (!strcmp(a, "--dtype")) {
			NEED_VALUE;
			char in[16];
			const char *c = strchr(v, ':');
			if (!c || c - v >= 16)
				goto bad;
			snprintf(in, sizeof in, "%.*s", (int)(c - v), v);
			o.in = gb_dtype_of(in);
			o.out = gb_dtype_of(c + 1);
			if (o.in == GB_NONE || o.in == GB_F32 || o.out == GB_NONE || o.out == GB_E4M3)
				goto bad;
		} else if (!strcmp(a, "--zero-c")) {
			o.zero_c = 1;
		} else if (!strcmp(a, "--b")) {
			NEED_VALUE;
			if (strcmp(v, "kn") && strcmp(v, "nk"))
				goto bad;
			o.b_nk = !strcmp(v, "nk");
		} else if (!strcmp(a, "--data")) {
			NEED_VALUE;
			if (strcmp(v, "random") && strcmp(v, "int"))
				goto bad;
			o.integers = !strcmp(v, "int");
		} else if (!strcmp(a, "--seed")) {
			NEED_VALUE;
			if (!parse_count(v, 0, (long long)1 << 62, &x))
				goto bad;
			o.seed = (unsigned long long)x;
		} else if (!strcmp(a, "--warmup")) {
			NEED_VALUE;
			if (!parse_count(v, 0, 100000, &x))
				goto bad;
			o.warmup = (int)x;
		} else if (!strcmp(a, "--rounds")) {
			NEED_VALUE;
			if (!parse_count(v, 0, 100000, &x))
				goto bad;
			o.rounds = (int)x;
		} else if (!strcmp(a, "--host-max")) {
			NEED_VALUE;
			if (!parse_count(v, 0, 1 << 20, &x))
				goto bad;
			o.host_max = (int)x;
		} else if (!strcmp(a, "--lt-algos")) {
			NEED_VALUE;
			if (!parse_count(v, 1, MAX_LT_ALGOS, &x))
				goto bad;
			o.lt_algos = (int)x;
		} else if (!strcmp(a, "--fp8-fast-accum")) {
			NEED_VALUE;
			if (!parse_count(v, 0, 1, &x))
				goto bad;
			o.fp8_fast_accum = (int)x;
		} else if (!strcmp(a, "--tol")) {
			NEED_VALUE;
			char *end;
			o.tol = strtod(v, &end);
			if (end == v || *end || !(o.tol >= 0))
				goto bad;
		} else if (!strcmp(a, "--auto")) {
			o.auto_pick = 1;
		} else if (!strcmp(a, "--epilogue")) {
			NEED_VALUE;
			o.epi = -1;
			for (int e = 0; e < NEPI; e++)
				if (!strcmp(v, epi_name[e]))
					o.epi = e;
			if (o.epi < 0)
				goto bad;
		} else if (!strcmp(a, "--alpha") || !strcmp(a, "--beta")) {
			NEED_VALUE;
			char *end;
			float f = strtof(v, &end);
			if (end == v || *end || !isfinite(f))
				goto bad;
			*(a[2] == 'a' ? &o.alpha : &o.beta) = f;
		} else if (!strcmp(a, "--scale-a") || !strcmp(a, "--scale-b")) {
			NEED_VALUE;
			char *end;
			float f = strtof(v, &end);
			if (end == v || *end || !isfinite(f))
				goto bad;
			*(a[8] == 'a' ? &o.scale_a : &o.scale_b) = f;
		} else if (!strcmp(a, "--bias-name")) {
			NEED_VALUE;
			if (strlen(v) >= sizeof o.biasn)
				goto bad;
			strcpy(o.biasn, v);
		} else if (!strcmp(a, "--set")) {
			NEED_VALUE;
			if (o.nsets >= 32 || !strchr(v, '='))
				goto bad;
			o.sets[o.nsets++] = v;
		} else if (a[0] != '-' && nsize < 3 && parse_count(a, 1, (long long)1 << 31, &x)) {
			size[nsize++] = x;
		} else {
			v = a;
			goto bad;
		}
		continue;
	bad:
		fprintf(stderr, "gemm_bench: bad argument '%s'\n%s", v ? v : a, usage);
		return 2;
	}
	if (issue == (nsize == 3) || (nsize != 0 && nsize != 3) || (o.auto_pick && (issue || o.tile))) {
		fputs(usage, stderr);
		return 2;
	}
	CUresult r = cuInit(0);
	int count = 0;
	if (r != CUDA_SUCCESS || cuDeviceGetCount(&count) != CUDA_SUCCESS || !count) {
		fprintf(stderr, "gemm_bench: no CUDA GPU or driver is available\n");
		return 3;
	}
	CUdevice dev;
	CUcontext ctx;
	CU(cuDeviceGet(&dev, 0));
	CU(cuDevicePrimaryCtxRetain(&ctx, dev));
	CU(cuCtxSetCurrent(ctx));
	char name[256] = "";
	int drv = 0, sms = 0;
	cuDeviceGetName(name, sizeof name, dev);
	cuDriverGetVersion(&drv);
	cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev);
	CUstream st;
	CU(cuStreamCreate(&st, CU_STREAM_NON_BLOCKING));
	cublasHandle_t cb;
	CB(cublasCreate(&cb));
	CB(cublasSetStream(cb, (cudaStream_t)st));
	Lt lt = {0};
	CB(cublasLtCreate(&lt.h));
	int cbv = 0;
	cublasGetVersion(cb, &cbv);
	printf("device: %s, %d SMs, driver API %d.%d; cuBLAS %d, cuBLASLt %zu; tilepx %s\n", name, sms, drv / 1000,
	       drv % 1000 / 10, cbv, cublasLtGetVersion(), tilepx_version());
	if (o.rounds)
		printf("timing: %d warm-up launches, then %d rounds of one launch per implementation (tilepx, "
		       "cublasGemmEx, cublasLt), each between its own pair of events on one stream; TFLOPS = 2*M*N*K / "
		       "time\n",
		       o.warmup, o.rounds);
	else
		printf("checks only (--rounds 0): nothing is timed\n");
	Nvml nv;
	nvml_open(&nv, dev);
	if (nv.dev) {
		unsigned mx = 0, lim = 0;
		if (nv.max_clock)
			nv.max_clock(nv.dev, 1, &mx);
		if (nv.power_limit)
			nv.power_limit(nv.dev, &lim);
		printf("NVML: max SM clock %u MHz, enforced power limit %.0f W\n", mx, lim / 1000.0);
	}
	nvml_log(&nv, "at start");
	if (o.auto_pick && !auto_pick(&o, size[0], size[1], size[2], sms))
		return 2;
	Tile tile, *t = NULL;
	if (o.tile) {
		t = &tile;
		tile_open(t, &o);
		if (t->loaded)
			printf("tilepx: %s, kernel %s: %s x %s -> %s, B %s%s (from its param declarations)\n", o.tile, t->k.name,
			       gb_dtype_name(t->roles.ab), gb_dtype_name(t->roles.ab), gb_dtype_name(t->roles.out),
			       t->roles.b_nk ? "[N, K]" : "[K, N]",
			       t->roles.b_ambiguous ? " (K and N are the same dim: the orientation of --b)" : "");
		else
			printf("SKIP tilepx: %s\n", t->why);
	}
	static const long long issue_sizes[][3] = {
		{4096, 4096, 4096}, {8192, 8192, 8192}, {4095, 4097, 4096}, {8192, 8192, 1024}, {128, 8192, 8192},
	};
	if (issue)
		for (size_t i = 0; i < sizeof issue_sizes / sizeof issue_sizes[0]; i++)
			run_size(&o, t, cb, &lt, st, &nv, issue_sizes[i][0], issue_sizes[i][1], issue_sizes[i][2]);
	else
		run_size(&o, t, cb, &lt, st, &nv, size[0], size[1], size[2]);
	nvml_log(&nv, "at the end");
	printf("%s: %d check failure%s\n", failures ? "FAILED" : "OK", failures, failures == 1 ? "" : "s");
	if (t) {
		if (t->loaded)
			cuModuleUnload(t->mod);
		tilepx_cuda_close(t->cu);
		tilepx_result_free(&t->ptx);
		free(t->src);
	}
	cublasLtDestroy(lt.h);
	cublasDestroy(cb);
	cuStreamDestroy(st);
	cuDevicePrimaryCtxRelease(dev);
	return failures ? 1 : 0;
}
