/* The few CUDA driver API types and entry points src/api/launch.c uses, declared
 * as the driver API defines them (cuda.h, CUDA 12 and 13), so the library
 * builds without CUDA. tests/unit/test_launch.c checks the layouts and enum
 * values against cuda.h where it is installed. */
#ifndef TILEPX_LAUNCH_CUDA_H
#define TILEPX_LAUNCH_CUDA_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef int CUresult; /* an enum in cuda.h: int-sized */
enum { CUDA_SUCCESS = 0 };
typedef int CUdevice;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef uint64_t cuuint64_t;
typedef uint32_t cuuint32_t;

typedef int CUjit_option;
enum {
	CU_JIT_INFO_LOG_BUFFER = 3,
	CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES = 4,
	CU_JIT_ERROR_LOG_BUFFER = 5,
	CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6,
};
enum { CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8 };
enum { CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION = 4 };

/* CUlaunchAttribute: the id, padded to 8 bytes, then a 64-byte union */
typedef struct CUlaunchAttribute {
	int id;
	char pad[8 - sizeof(int)];
	union {
		char pad[64];
		struct {
			unsigned x, y, z;
		} clusterDim;
	} value;
} CUlaunchAttribute;

typedef struct CUlaunchConfig {
	unsigned gridDimX, gridDimY, gridDimZ;
	unsigned blockDimX, blockDimY, blockDimZ;
	unsigned sharedMemBytes;
	CUstream hStream;
	CUlaunchAttribute *attrs;
	unsigned numAttrs;
} CUlaunchConfig;

/* the entry points, resolved by dlsym (src/api/launch.c) */
typedef struct CudaDriver {
	CUresult (*cuGetErrorString)(CUresult, const char **);
	CUresult (*cuInit)(unsigned);
	CUresult (*cuDeviceGet)(CUdevice *, int);
	CUresult (*cuDeviceGetCount)(int *);
	CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *, CUdevice);
	CUresult (*cuCtxGetCurrent)(CUcontext *);
	CUresult (*cuCtxSetCurrent)(CUcontext);
	CUresult (*cuModuleLoadDataEx)(CUmodule *, const void *, unsigned, CUjit_option *, void **);
	CUresult (*cuModuleGetFunction)(CUfunction *, CUmodule, const char *);
	CUresult (*cuModuleUnload)(CUmodule);
	CUresult (*cuFuncSetAttribute)(CUfunction, int, int);
	/* map, data type, rank, address, dims, strides, box, element strides,
	 * interleave, swizzle, L2 promotion, OOB fill (enums: int-sized) */
	CUresult (*cuTensorMapEncodeTiled)(void *, int, cuuint32_t, void *, const cuuint64_t *, const cuuint64_t *,
	                                   const cuuint32_t *, const cuuint32_t *, int, int, int, int);
	CUresult (*cuLaunchKernelEx)(const CUlaunchConfig *, CUfunction, void **, void **);
	CUresult (*cuStreamSynchronize)(CUstream);
} CudaDriver;
#endif
