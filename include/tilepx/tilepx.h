/* tilepx public C API: compile a .tile program to PTX text, check it, or
 * explain its dispatch decisions. Everything a call allocates lives in its
 * result and is released by tilepx_result_free. */
#ifndef TILEPX_H
#define TILEPX_H

#include <stddef.h>

/* the version this header belongs to; tilepx_version() is the library's */
#define TILEPX_VERSION_MAJOR 0
#define TILEPX_VERSION_MINOR 2
#define TILEPX_VERSION_PATCH 0
#define TILEPX_VERSION_STRING "0.2.0"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum tilepx_mode {
	TILEPX_CHECK,        /* front end only */
	TILEPX_EMIT,         /* PTX module text */
	TILEPX_EXPLAIN,      /* dispatch table, human readable */
	TILEPX_EXPLAIN_JSON, /* one JSON object per copy (docs/language.md) */
} tilepx_mode;

typedef struct tilepx_result {
	int ok;             /* 1 on success, 0 when the input has errors */
	char *output;       /* PTX or explain text (NULL for CHECK or on error) */
	size_t output_len;
	char *diagnostics;  /* FILE:LINE:COL: error|warning: ... lines with carets */
} tilepx_result;

/* Compile src[0..len). path names the source in diagnostics (NULL: "<input>");
 * src need not be NUL-terminated and may be NULL only when len is 0.
 * target overrides the file's `target` when not NULL (e.g. "sm_90").
 * Returns 1 and sets out->ok = 1 on success; returns 0 with out->ok = 0 when
 * the input has errors or an argument is invalid (src NULL with len > 0, an
 * unknown mode): out->diagnostics then says why. out must not be NULL (the
 * call returns 0 and does nothing if it is). Free out with tilepx_result_free. */
int tilepx_compile(const char *path, const char *src, size_t len, const char *target, tilepx_mode mode,
                   tilepx_result *out);
/* What a launcher needs beyond the kernel's pointer params: the grid, the
 * dynamic shared memory, and the tensor maps of its `tma` params, each the
 * exact arguments of cuTensorMapEncodeTiled (CUDA driver enum values; dims,
 * boxes and element strides innermost first; strides in bytes of dimensions
 * 1..rank-1). The map's global address is the device pointer of param
 * param_index; the encoded CUtensorMap goes, by value, at kernel parameter
 * kernel_param_index (after the declared params). docs/language.md, "TMA". */
#define TILEPX_MAX_TENSOR_MAPS 16
typedef struct tilepx_tensor_map {
	char param[64];
	int param_index, kernel_param_index;
	int data_type, rank;
	unsigned long long global_dims[5], global_strides[4];
	unsigned box_dims[5], element_strides[5];
	int interleave, swizzle, l2_promotion, oob_fill;
} tilepx_tensor_map;

/* a scalar param (docs/language.md, "Runtime sizes"): its value, of `bytes`
 * bytes, goes at kernel parameter kernel_param_index (after the pointers) */
#define TILEPX_MAX_SCALARS 32
typedef struct tilepx_scalar {
	char name[64];
	int bytes, is_signed;
	int kernel_param_index;
	long long value; /* the bound value (tilepx_launches_set), else 0 */
} tilepx_scalar;

typedef struct tilepx_launch {
	char kernel[128];
	/* a kernel with scalar params: without values (tilepx_launches) the grid
	 * and runtime tensor-map dims and strides are 0 and needs_values is 1 */
	int needs_values;
	int nscalars;
	tilepx_scalar scalars[TILEPX_MAX_SCALARS];
	long long grid[2];
	int block;
	long long cluster[2];           /* CTAs per cluster in x and y ({0, 0}: no cluster):
	                                   launch with CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION */
	int nparams;                    /* declared params (device pointers) */
	long long dynamic_shared_bytes; /* > 0: pass it at launch; past 48 KiB also set
	                                   CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES */
	int ntensor_maps;
	tilepx_tensor_map tensor_maps[TILEPX_MAX_TENSOR_MAPS];
} tilepx_launch;

/* check the program and fill out[0..max) with the launch facts of its
 * kernels (entries only, in order); returns how many kernels it has (which
 * may exceed max), or -1 when the input has errors (then diag->diagnostics
 * says why). diag must not be NULL; free it with tilepx_result_free. */
int tilepx_launches(const char *path, const char *src, size_t len, const char *target, tilepx_launch *out, int max,
                    tilepx_result *diag);
/* the same with scalar values "NAME=V" (sets[0..nsets)) bound: the grid and
 * tensor maps are those of that launch. A missing value or one that breaks
 * a fact (assume) is an error in diag and the call returns -1. */
int tilepx_launches_set(const char *path, const char *src, size_t len, const char *target, const char *const *sets,
                        int nsets, tilepx_launch *out, int max, tilepx_result *diag);

/* releases what a result holds and zeroes it; NULL is allowed */
void tilepx_result_free(tilepx_result *r);
/* the library version, "MAJOR.MINOR.PATCH" */
const char *tilepx_version(void);

#ifdef __cplusplus
}
#endif
#endif
