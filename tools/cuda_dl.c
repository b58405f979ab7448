/* The CUDA driver entry points tilepx-run calls, each forwarded to
 * libcuda.so.1 opened at run time, so that tilepx-run links and starts
 * without a driver (--help, and "no CUDA driver" said clearly); the library's
 * launch layer (src/api/launch.c) opens the same driver for the launches. The
 * prototypes are cuda.h's (included: the compiler checks each one), and a
 * name cuda.h maps to a versioned entry point (cuMemAlloc -> cuMemAlloc_v2)
 * is looked up under that name. */
#define _POSIX_C_SOURCE 200809L
#include <cuda.h>
#include <dlfcn.h>
#include <stddef.h>

#define NAME_OF(f) NAME_OF_(f)
#define NAME_OF_(f) #f

/* the driver's symbol, or NULL (then the call fails as "not initialized") */
static void *sym(const char *name)
{
	static void *lib; /* the tool's one handle, opened at the first call */
	if (!lib)
		lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_GLOBAL);
	return lib ? dlsym(lib, name) : NULL;
}

#define FORWARD(f, params, args)                                                       \
	CUresult CUDAAPI f params                                                      \
	{                                                                              \
		CUresult(CUDAAPI * fp) params;                                         \
		*(void **)&fp = sym(NAME_OF(f));                                       \
		return fp ? fp args : CUDA_ERROR_NOT_INITIALIZED;                      \
	}

FORWARD(cuGetErrorString, (CUresult error, const char **pStr), (error, pStr))
FORWARD(cuInit, (unsigned int Flags), (Flags))
FORWARD(cuDeviceGetCount, (int *count), (count))
FORWARD(cuDeviceGet, (CUdevice *device, int ordinal), (device, ordinal))
FORWARD(cuDeviceGetAttribute, (int *pi, CUdevice_attribute attrib, CUdevice dev), (pi, attrib, dev))
FORWARD(cuDevicePrimaryCtxRetain, (CUcontext *pctx, CUdevice dev), (pctx, dev))
FORWARD(cuDevicePrimaryCtxRelease, (CUdevice dev), (dev))
FORWARD(cuCtxSetCurrent, (CUcontext ctx), (ctx))
FORWARD(cuCtxSynchronize, (void), ())
FORWARD(cuMemAlloc, (CUdeviceptr *dptr, size_t bytesize), (dptr, bytesize))
FORWARD(cuMemFree, (CUdeviceptr dptr), (dptr))
FORWARD(cuMemcpyHtoD, (CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount), (dstDevice, srcHost, ByteCount))
FORWARD(cuMemcpyDtoH, (void *dstHost, CUdeviceptr srcDevice, size_t ByteCount), (dstHost, srcDevice, ByteCount))
FORWARD(cuEventCreate, (CUevent *phEvent, unsigned int Flags), (phEvent, Flags))
FORWARD(cuEventRecord, (CUevent hEvent, CUstream hStream), (hEvent, hStream))
FORWARD(cuEventSynchronize, (CUevent hEvent), (hEvent))
FORWARD(cuEventElapsedTime, (float *pMilliseconds, CUevent hStart, CUevent hEnd), (pMilliseconds, hStart, hEnd))
FORWARD(cuEventDestroy, (CUevent hEvent), (hEvent))
FORWARD(cuModuleLoadData, (CUmodule *module, const void *image), (module, image))
FORWARD(cuModuleLoadDataEx,
        (CUmodule *module, const void *image, unsigned int numOptions, CUjit_option *options, void **optionValues),
        (module, image, numOptions, options, optionValues))
FORWARD(cuModuleGetFunction, (CUfunction *hfunc, CUmodule hmod, const char *name), (hfunc, hmod, name))
FORWARD(cuModuleUnload, (CUmodule hmod), (hmod))
FORWARD(cuLinkCreate, (unsigned int numOptions, CUjit_option *options, void **optionValues, CUlinkState *stateOut),
        (numOptions, options, optionValues, stateOut))
FORWARD(cuLinkAddData,
        (CUlinkState state, CUjitInputType type, void *data, size_t size, const char *name, unsigned int numOptions,
         CUjit_option *options, void **optionValues),
        (state, type, data, size, name, numOptions, options, optionValues))
FORWARD(cuLinkComplete, (CUlinkState state, void **cubinOut, size_t *sizeOut), (state, cubinOut, sizeOut))
FORWARD(cuLinkDestroy, (CUlinkState state), (state))
