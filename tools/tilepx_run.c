/* tilepx-run: run emitted PTX on a GPU through the CUDA driver API and check
 * every byte of every param buffer against the CPU reference (src/ref/).
 *
 *   tilepx-run [--bench N] [--ptx FILE.ptx] [--link FILE.ptx] [--gemm C=A*B] [--set NAME=V]... FILE.tile...
 *
 * One line per kernel: PASS, FAIL (first mismatches) or SKIP (target the GPU
 * cannot run). Exit 1 on any failure, 2 on usage errors. */
#define _POSIX_C_SOURCE 200809L
#include "runcore.h"

#include <cuda.h>
#include <getopt.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static const char *usage =
	"usage: tilepx-run [--bench N] [--ptx FILE.ptx] [--link FILE.ptx] [--gemm C=A*B] [--set NAME=V]...\n"
	"                  FILE.tile...\n\n"
	"Emit each .tile program (or load --ptx, emitted from the one FILE.tile), launch every kernel\n"
	"with grid x threads, and compare every param buffer with the CPU reference, bit for bit.\n"
	"Inputs hold a deterministic pattern (distinct values per buffer up to the dtype's range).\n"
	"--bench N times N launches after a warm-up and prints microseconds per launch and GB/s.\n"
	"--gemm C=A*B checks param C against a dense host product of params A [M, K] and B [K, N]\n"
	"(f16 or bf16, row-major) instead of running the CPU reference (for sizes the reference\n"
	"cannot run in time), and reports TFLOPS with --bench. 'fill small' inputs make it exact.\n"
	"--link FILE.ptx links a PTX module (hand-written, calling the program's device functions)\n"
	"with the emitted one through the driver's linker (cuLinkCreate/AddData/Complete); the\n"
	"program's extern kernels are defined there.\n"
	"--set NAME=V gives scalar param NAME the value V (else the program's '# set: NAME=V' line);\n"
	"a value that breaks one of the kernel's facts (assume) is refused and nothing runs.\n";

static const char *link_path;

/* --gemm C=A*B, as given */
static const char *gemm_spec;

/* --set NAME=V, as given (at most one per argument) */
static char **sets;
static int nsets;

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


/* the kernel's tensor maps, encoded by the driver from kernel_tensor_maps()
 * (the exact arguments explain --json prints); false with the arguments
 * printed when the driver refuses them */
static bool encode_tensor_maps(const Kernel *k, const CUdeviceptr *dev, CUtensorMap *tm, int *n)
{
	TensorMapArgs a[16];
	*n = kernel_tensor_maps(k, a, 16);
	for (int i = 0; i < *n && i < 16; i++) {
		cuuint64_t dims[5], strides[4];
		cuuint32_t box[5], es[5];
		for (int d = 0; d < a[i].rank; d++) {
			dims[d] = a[i].dims[d];
			box[d] = a[i].box[d];
			es[d] = a[i].elem_strides[d];
			if (d)
				strides[d - 1] = a[i].strides[d - 1];
		}
		CUresult r = cuTensorMapEncodeTiled(&tm[i], (CUtensorMapDataType)a[i].dtype, (cuuint32_t)a[i].rank,
		                                    (void *)dev[a[i].buf->param_index], dims, strides, box, es,
		                                    (CUtensorMapInterleave)a[i].interleave, (CUtensorMapSwizzle)a[i].swizzle,
		                                    (CUtensorMapL2promotion)a[i].l2_promotion,
		                                    (CUtensorMapFloatOOBfill)a[i].oob_fill);
		if (r != CUDA_SUCCESS) {
			const char *s = NULL;
			cuGetErrorString(r, &s);
			printf("FAIL %s: cuTensorMapEncodeTiled for '%s': %s (dtype %d rank %d, box bytes %lld, swizzle %d)\n",
			       k->name, a[i].buf->name, s ? s : "?", a[i].dtype, a[i].rank, (long long)a[i].box_bytes,
			       a[i].swizzle);
			return false;
		}
	}
	return true;
}

/* a kernel with a cluster launches through cuLaunchKernelEx with its
 * cluster dims (the entry's .reqnctapercluster must match them) */
static CUresult launch(const Kernel *k, CUfunction fn, void **args)
{
	if (!k->cluster_x)
		return cuLaunchKernel(fn, (unsigned)k->grid, (unsigned)k->grid_y, 1, (unsigned)k->threads, 1, 1,
		                      (unsigned)k->dyn_shared, 0, args, NULL);
	CUlaunchAttribute attr;
	memset(&attr, 0, sizeof attr);
	attr.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
	attr.value.clusterDim.x = (unsigned)k->cluster_x;
	attr.value.clusterDim.y = (unsigned)k->cluster_y;
	attr.value.clusterDim.z = 1;
	CUlaunchConfig cfg;
	memset(&cfg, 0, sizeof cfg);
	cfg.gridDimX = (unsigned)k->grid;
	cfg.gridDimY = (unsigned)k->grid_y;
	cfg.gridDimZ = 1;
	cfg.blockDimX = (unsigned)k->threads;
	cfg.blockDimY = 1;
	cfg.blockDimZ = 1;
	cfg.sharedMemBytes = (unsigned)k->dyn_shared;
	cfg.hStream = NULL;
	cfg.attrs = &attr;
	cfg.numAttrs = 1;
	return cuLaunchKernelEx(&cfg, fn, args, NULL);
}

static bool run_kernel(Ctx *cx, const Module *m, const Kernel *k, CUmodule mod, int bench, int *status)
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
	void **args = calloc((size_t)np + 17 + 32, sizeof *args);
	static CUtensorMap tm[16]; /* 64-byte aligned, as the driver requires */
	int ntm = 0;
	bool ok = true;
	CUfunction fn;
	CU(cuModuleGetFunction(&fn, mod, k->name));
	/* each buffer between two guards of RC_GUARD bytes (256: the pointer stays
	 * 256-byte aligned), which must be untouched after the kernel */
	CUdeviceptr *raw = calloc((size_t)np + 1, sizeof *raw);
	unsigned char guard[RC_GUARD];
	for (int i = 0; i < np; i++) {
		CU(cuMemAlloc(&raw[i], rp.bytes[i] + 2 * RC_GUARD));
		dev[i] = raw[i] + RC_GUARD;
		for (int side = 0; side < 2; side++) {
			rc_guard_fill(guard, i, side);
			CU(cuMemcpyHtoD(side ? dev[i] + rp.bytes[i] : raw[i], guard, RC_GUARD));
		}
		CU(cuMemcpyHtoD(dev[i], rp.init[i], rp.bytes[i]));
		args[i] = &dev[i];
	}
	if (!encode_tensor_maps(k, dev, tm, &ntm)) {
		*status = 1;
		return false;
	}
	/* scalars after the pointers, tensor maps last (docs/language.md) */
	uint64_t sval[32];
	int ns = 0;
	for (size_t i = 0; i < k->nscalars && i < 32; i++) {
		sval[i] = (uint64_t)k->bound_vals[i]; /* little-endian: a u32 is its first 4 bytes */
		args[np + ns++] = &sval[i];
	}
	for (int i = 0; i < ntm; i++)
		args[np + ns + i] = &tm[i];
	if (k->dyn_shared)
		CU(cuFuncSetAttribute(fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, (int)k->dyn_shared));
	CU(launch(k, fn, args));
	CUresult lr = cuCtxSynchronize();
	if (lr != CUDA_SUCCESS) {
		const char *s = NULL;
		cuGetErrorString(lr, &s);
		printf("FAIL %s: launch: %s\n", k->name, s ? s : "?");
		*status = 1;
		return false;
	}
	for (int i = 0; i < np; i++) {
		CU(cuMemcpyDtoH(rp.got[i], dev[i], rp.bytes[i]));
		for (int side = 0; side < 2; side++) {
			CU(cuMemcpyDtoH(guard, side ? dev[i] + rp.bytes[i] : raw[i], RC_GUARD));
			long at = rc_guard_check(guard, i, side);
			if (at >= 0) {
				printf("FAIL %s: param %s: a guard byte %s was written (%ld bytes %s)\n", k->name, rp.buf[i]->name,
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
				*status = 1;
				ok = false;
			}
		}
	}
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
	} else if (ok) {
		printf("PASS %s (%s, grid %lld x %lld x %lld threads%s)\n", k->name, m->target->name, (long long)k->grid,
		       (long long)k->grid_y, (long long)k->threads, gemm_spec ? ", against a dense host GEMM" : "");
	}
	if (ok && bench > 0) {
		CUevent a, b;
		CU(cuEventCreate(&a, 0));
		CU(cuEventCreate(&b, 0));
		for (int w = 0; w < 3; w++)
			CU(launch(k, fn, args));
		CU(cuEventRecord(a, 0));
		for (int r = 0; r < bench; r++)
			CU(launch(k, fn, args));
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
	for (int i = 0; i < np; i++)
		cuMemFree(raw[i]);
	free(raw);
	rc_params_free(&rp);
	free(dev);
	free(args);
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
	char *src = rc_slurp(path, &len);
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
	if (!cx.diags.errors)
		rc_warn_unused_sets(m, sets, nsets, "tilepx-run", path);
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
		text = rc_slurp(ptx_path, &n);
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
		char *hand = rc_slurp(link_path, &ln);
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
		if (k->is_extern && !gemm_spec) {
			printf("FAIL %s: an extern kernel has no reference meaning; check it with --gemm\n", k->name);
			*status = 1;
			continue;
		}
		char why[256];
		if (!rc_bind(m->kernels[i], sets, nsets, src, why, sizeof why)) {
			printf("FAIL %s: %s\n", k->name, why); /* refused: nothing runs */
			*status = 1;
			continue;
		}
		if (!run_kernel(&cx, m, k, mod, bench, status))
			*status = 1; /* (a failed driver call returns false and only prints) */
		free((void *)k->bound_vals);
		m->kernels[i]->bound_vals = NULL;
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
		{"link", required_argument, 0, 'l'}, {"set", required_argument, 0, 's'},
		{"help", no_argument, 0, 'h'},        {0, 0, 0, 0},
	};
	int bench = 0, c;
	const char *ptx = NULL;
	static char *no_sets[1];
	sets = argc > 0 ? calloc((size_t)argc, sizeof *sets) : NULL;
	if (!sets)
		sets = no_sets;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
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
