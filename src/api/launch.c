/* The host side of a launch (include/tilepx/tilepx.h, "Launching on a GPU"):
 * a kernel's launch record (tilepx_launch) becomes the driver's arguments -
 * tensor maps encoded with the record's cuTensorMapEncodeTiled arguments,
 * params packed in ABI order, cluster dims and dynamic shared memory as
 * launch attributes - and one cuLaunchKernelEx. The driver is opened with
 * dlopen at run time, so the library neither links nor needs CUDA until a
 * launch is asked for; the few driver types used are declared here, as the
 * driver API defines them (tests/unit/test_launch.c compares them with
 * cuda.h where it is installed). */
#define _POSIX_C_SOURCE 200809L
#include "../include/tilepx/tilepx.h"

#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "launch_cuda.h"

struct tilepx_cuda {
	void *lib; /* dlopen("libcuda.so.1"); NULL when a lookup gave the entry points */
	CudaDriver fn;
};

/* an entry point of the opened driver library */
static void *driver_symbol(void *lib, const char *name) { return dlsym(lib, name); }

static int fail(char *why, size_t n, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	if (why && n)
		vsnprintf(why, n, fmt, ap);
	va_end(ap);
	return 0;
}

static const char *cu_error(const tilepx_cuda *cu, CUresult r)
{
	const char *s = NULL;
	if (cu->fn.cuGetErrorString)
		cu->fn.cuGetErrorString(r, &s);
	return s ? s : "unknown CUDA error";
}

/* every entry point the layer calls, by its ABI name (cuda.h maps some API
 * names to _v2 entry points) */
static bool resolve(tilepx_cuda *cu, void *(*lookup)(void *, const char *), void *ctx, char *why, size_t n)
{
#define SYM(field, name)                                                                      \
	do {                                                                                  \
		*(void **)&cu->fn.field = lookup(ctx, name);                                  \
		if (!cu->fn.field)                                                            \
			return fail(why, n, "the CUDA driver lacks %s: it is older than CUDA 12", name); \
	} while (0)
	SYM(cuGetErrorString, "cuGetErrorString");
	SYM(cuInit, "cuInit");
	SYM(cuDeviceGet, "cuDeviceGet");
	SYM(cuDeviceGetCount, "cuDeviceGetCount");
	SYM(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain");
	SYM(cuCtxGetCurrent, "cuCtxGetCurrent");
	SYM(cuCtxSetCurrent, "cuCtxSetCurrent");
	SYM(cuModuleLoadDataEx, "cuModuleLoadDataEx");
	SYM(cuModuleGetFunction, "cuModuleGetFunction");
	SYM(cuModuleUnload, "cuModuleUnload");
	SYM(cuFuncSetAttribute, "cuFuncSetAttribute");
	SYM(cuTensorMapEncodeTiled, "cuTensorMapEncodeTiled");
	SYM(cuLaunchKernelEx, "cuLaunchKernelEx");
	SYM(cuStreamSynchronize, "cuStreamSynchronize");
#undef SYM
	return true;
}

/* the entry points resolved, the driver initialised, a GPU present */
static tilepx_cuda *start(tilepx_cuda *cu, void *(*lookup)(void *, const char *), void *ctx, char *why, size_t n)
{
	CUresult r = CUDA_SUCCESS;
	int count = 0;
	if (!resolve(cu, lookup, ctx, why, n) || (r = cu->fn.cuInit(0)) != CUDA_SUCCESS ||
	    (r = cu->fn.cuDeviceGetCount(&count)) != CUDA_SUCCESS || count == 0) {
		if (r != CUDA_SUCCESS || count == 0)
			fail(why, n, "no CUDA GPU: the driver found none (cuInit: %s)",
			     r != CUDA_SUCCESS ? cu_error(cu, r) : "0 devices");
		tilepx_cuda_close(cu);
		return NULL;
	}
	return cu;
}

tilepx_cuda *tilepx_cuda_open(char *why, size_t n)
{
	tilepx_cuda *cu = calloc(1, sizeof *cu);
	if (!cu) {
		fail(why, n, "out of memory");
		return NULL;
	}
	cu->lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!cu->lib) {
		fail(why, n, "no CUDA driver: libcuda.so.1 not found (%s)", dlerror());
		free(cu);
		return NULL;
	}
	return start(cu, driver_symbol, cu->lib, why, n);
}

tilepx_cuda *tilepx_cuda_open_with(void *(*lookup)(void *ctx, const char *name), void *ctx, char *why, size_t n)
{
	tilepx_cuda *cu = calloc(1, sizeof *cu);
	if (!cu) {
		fail(why, n, "out of memory");
		return NULL;
	}
	return start(cu, lookup, ctx, why, n);
}

void tilepx_cuda_close(tilepx_cuda *cu)
{
	if (!cu)
		return;
	if (cu->lib)
		dlclose(cu->lib);
	free(cu);
}

int tilepx_cuda_context(tilepx_cuda *cu, int device, char *why, size_t n)
{
	CUcontext ctx = NULL;
	CUdevice dev;
	CUresult r = cu->fn.cuCtxGetCurrent(&ctx);
	if (r == CUDA_SUCCESS && ctx)
		return 1;
	if ((r = cu->fn.cuDeviceGet(&dev, device)) != CUDA_SUCCESS ||
	    (r = cu->fn.cuDevicePrimaryCtxRetain(&ctx, dev)) != CUDA_SUCCESS ||
	    (r = cu->fn.cuCtxSetCurrent(ctx)) != CUDA_SUCCESS)
		return fail(why, n, "cannot make GPU %d's primary context current: %s", device, cu_error(cu, r));
	return 1;
}

int tilepx_cuda_load(tilepx_cuda *cu, const char *ptx, void **module, char *why, size_t n)
{
	char log[8192] = "", err[8192] = "";
	CUjit_option opt[] = {CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES, CU_JIT_ERROR_LOG_BUFFER,
	                      CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
	void *val[] = {log, (void *)(size_t)sizeof log, err, (void *)(size_t)sizeof err};
	CUresult r = cu->fn.cuModuleLoadDataEx((CUmodule *)module, ptx, 4, opt, val);
	if (r != CUDA_SUCCESS)
		return fail(why, n, "the driver's JIT refused the PTX: %s\n%s%s", cu_error(cu, r), err, log);
	return 1;
}

int tilepx_cuda_function(tilepx_cuda *cu, void *module, const char *kernel, void **function, char *why, size_t n)
{
	CUresult r = cu->fn.cuModuleGetFunction((CUfunction *)function, (CUmodule)module, kernel);
	if (r != CUDA_SUCCESS)
		return fail(why, n, "no kernel '%s' in the module: %s", kernel, cu_error(cu, r));
	return 1;
}

void tilepx_cuda_unload(tilepx_cuda *cu, void *module)
{
	if (cu && module)
		cu->fn.cuModuleUnload((CUmodule)module);
}

/* bytes per element of a CUtensorMapDataType (the driver's enum order) */
static int tensor_map_elem_bytes(int t)
{
	static const int bytes[] = {1, 2, 4, 4, 8, 8, 2, 4, 8, 2, 4, 4, 4};
	return t >= 0 && t < (int)(sizeof bytes / sizeof *bytes) ? bytes[t] : 1;
}

/* tensor map i of l, encoded at its global address; the arguments printed
 * when the driver refuses them */
static int encode_map(tilepx_cuda *cu, const tilepx_tensor_map *t, unsigned long long base, void *out, char *why,
                      size_t n)
{
	cuuint64_t dims[5], strides[4];
	cuuint32_t box[5], es[5];
	long long box_bytes = tensor_map_elem_bytes(t->data_type);
	for (int d = 0; d < t->rank && d < 5; d++) {
		dims[d] = t->global_dims[d];
		box[d] = t->box_dims[d];
		es[d] = t->element_strides[d];
		box_bytes *= t->box_dims[d];
		if (d)
			strides[d - 1] = t->global_strides[d - 1];
	}
	CUresult r = cu->fn.cuTensorMapEncodeTiled(out, t->data_type, (cuuint32_t)t->rank, (void *)(size_t)base, dims,
	                                           strides, box, es, t->interleave, t->swizzle, t->l2_promotion,
	                                           t->oob_fill);
	if (r != CUDA_SUCCESS)
		return fail(why, n, "cuTensorMapEncodeTiled for '%s': %s (dtype %d rank %d, box bytes %lld, swizzle %d)",
		            t->param, cu_error(cu, r), t->data_type, t->rank, box_bytes, t->swizzle);
	return 1;
}

/* the record's shape of a launch: whole, bound, within the packed arrays */
static int check_record(const tilepx_launch *l, int npointers, char *why, size_t n)
{
	if (l->needs_values)
		return fail(why, n, "kernel '%s' has scalar params without values (bind them: tilepx_launch_of)",
		            l->kernel);
	if (npointers != l->nparams)
		return fail(why, n, "kernel '%s' takes %d pointers, %d given", l->kernel, l->nparams, npointers);
	int nargs = l->nparams + l->nscalars + l->ntensor_maps;
	if (l->nparams > TILEPX_MAX_PARAMS || l->nscalars > TILEPX_MAX_SCALARS ||
	    l->ntensor_maps > TILEPX_MAX_TENSOR_MAPS || nargs > TILEPX_MAX_ARGS)
		return fail(why, n, "kernel '%s' has more params than a launch record holds", l->kernel);
	if (l->grid[0] < 1 || l->grid[1] < 1 || l->block < 1)
		return fail(why, n, "kernel '%s': an empty grid or block", l->kernel);
	return 1;
}

/* param slot i of the ABI order (0 .. nargs), in range, not yet taken */
static bool slot_ok(const tilepx_packed *p, int i) { return i >= 0 && i < p->nargs && !p->args[i]; }

int tilepx_cuda_pack(tilepx_cuda *cu, const tilepx_launch *l, const unsigned long long *pointers, int npointers,
                     tilepx_packed *p, char *why, size_t n)
{
	if (!check_record(l, npointers, why, n))
		return 0;
	memset(p, 0, sizeof *p);
	p->nargs = l->nparams + l->nscalars + l->ntensor_maps;
	for (int i = 0; i < l->nparams; i++) { /* pointers come first, in declaration order */
		p->values[i] = pointers[i];
		p->args[i] = &p->values[i];
	}
	for (int i = 0; i < l->nscalars; i++) {
		int at = l->scalars[i].kernel_param_index;
		if (!slot_ok(p, at))
			return fail(why, n, "scalar '%s' has no place among the kernel's params", l->scalars[i].name);
		p->values[at] = (unsigned long long)l->scalars[i].value; /* little-endian: a 4-byte one is its low half */
		p->args[at] = &p->values[at];
	}
	for (int i = 0; i < l->ntensor_maps; i++) {
		const tilepx_tensor_map *t = &l->tensor_maps[i];
		int at = t->kernel_param_index;
		if (!slot_ok(p, at) || t->param_index < 0 || t->param_index >= npointers)
			return fail(why, n, "tensor map of '%s' has no place among the kernel's params", t->param);
		if (!encode_map(cu, t, pointers[t->param_index], p->tensor_maps[i], why, n))
			return 0;
		p->args[at] = p->tensor_maps[i];
	}
	p->grid[0] = (unsigned)l->grid[0];
	p->grid[1] = (unsigned)l->grid[1];
	p->grid[2] = 1;
	p->block[0] = (unsigned)l->block;
	p->block[1] = p->block[2] = 1;
	if (l->cluster[0]) {
		p->cluster[0] = (unsigned)l->cluster[0];
		p->cluster[1] = (unsigned)(l->cluster[1] ? l->cluster[1] : 1);
		p->cluster[2] = 1;
	}
	p->dynamic_shared_bytes = (unsigned)l->dynamic_shared_bytes;
	return 1;
}

int tilepx_cuda_launch(tilepx_cuda *cu, void *function, const tilepx_packed *p, void *stream, char *why, size_t n)
{
	CUresult r;
	if (p->dynamic_shared_bytes &&
	    (r = cu->fn.cuFuncSetAttribute((CUfunction)function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
	                                   (int)p->dynamic_shared_bytes)) != CUDA_SUCCESS)
		return fail(why, n, "cannot give the kernel %u bytes of dynamic shared memory: %s", p->dynamic_shared_bytes,
		            cu_error(cu, r));
	CUlaunchAttribute attr;
	memset(&attr, 0, sizeof attr);
	attr.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
	attr.value.clusterDim.x = p->cluster[0];
	attr.value.clusterDim.y = p->cluster[1];
	attr.value.clusterDim.z = p->cluster[2];
	CUlaunchConfig cfg = {
		.gridDimX = p->grid[0], .gridDimY = p->grid[1], .gridDimZ = p->grid[2],
		.blockDimX = p->block[0], .blockDimY = p->block[1], .blockDimZ = p->block[2],
		.sharedMemBytes = p->dynamic_shared_bytes, .hStream = (CUstream)stream,
		.attrs = p->cluster[0] ? &attr : NULL, .numAttrs = p->cluster[0] ? 1 : 0,
	};
	r = cu->fn.cuLaunchKernelEx(&cfg, (CUfunction)function, (void **)p->args, NULL);
	if (r != CUDA_SUCCESS)
		return fail(why, n, "launch: %s", cu_error(cu, r));
	return 1;
}

int tilepx_cuda_run(tilepx_cuda *cu, void *function, const tilepx_launch *l, const unsigned long long *pointers,
                    int npointers, void *stream, char *why, size_t n)
{
	tilepx_packed *p = aligned_alloc(128, sizeof *p); /* a multiple of 128: the maps' alignment */
	if (!p)
		return fail(why, n, "out of memory");
	int ok = tilepx_cuda_pack(cu, l, pointers, npointers, p, why, n) &&
	         tilepx_cuda_launch(cu, function, p, stream, why, n);
	free(p); /* the driver copied the arguments at the launch */
	return ok;
}

int tilepx_cuda_sync(tilepx_cuda *cu, void *stream, char *why, size_t n)
{
	CUresult r = cu->fn.cuStreamSynchronize((CUstream)stream);
	if (r != CUDA_SUCCESS)
		return fail(why, n, "launch: %s", cu_error(cu, r));
	return 1;
}
