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

/* a pointer param (a kernel's declared `param NAME DTYPE [dims]`), what a
 * launcher checks a buffer against (python/tilepx does): its element type,
 * its shape and where each element lies. Dims outermost first, in elements;
 * a runtime dim (a scalar) is 0 until values are bound, and dim_scalar names
 * it (an index into scalars[], -1: a constant). strides are elements between
 * neighbours in each dim: row-major, or the `ld`/`colmajor` lines; a param
 * with a declared `layout` (has_layout) has no per-dimension strides (0) and
 * takes `storage` contiguous elements in the layout's order. */
#define TILEPX_MAX_PARAMS 64
typedef struct tilepx_param {
	char name[64];
	char dtype[8];                  /* "f16", "bf16", "f32", "e4m3", "u8", "i32", ... */
	int elem_bytes;
	int rank;
	long long dims[5];
	int dim_scalar[5];
	long long strides[5];
	int ld_scalar;                  /* `ld S`: S's index in scalars[], else -1 */
	int colmajor;
	int has_layout;
	long long storage;              /* elements the kernel may address (0 until values are bound) */
	int tma;                        /* the kernel also takes a tensor map of it (16-byte aligned start) */
	int line, col;                  /* where it is declared */
} tilepx_param;

typedef struct tilepx_launch {
	char kernel[128];
	int line, col;                  /* where the kernel is declared */
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
	tilepx_param params[TILEPX_MAX_PARAMS]; /* [nparams], in declaration order (param_index) */
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

/* one kernel's launch facts (kernel NULL: the first kernel), with its
 * scalar values "NAME=V" (sets[0..nsets)) bound when nsets > 0: only that
 * kernel is bound, so the other kernels' scalars need no values. Returns 1,
 * or 0 when the input has errors, no kernel has that name, a value is
 * missing or breaks a fact (assume): diag->diagnostics says why, located. */
int tilepx_launch_of(const char *path, const char *src, size_t len, const char *target, const char *kernel,
                     const char *const *sets, int nsets, tilepx_launch *out, tilepx_result *diag);

/* Launching on a GPU (src/api/launch.c). The CUDA driver is opened at run time
 * (dlopen "libcuda.so.1"): the library needs no CUDA to link or load, and on
 * a machine without a driver tilepx_cuda_open says "no CUDA driver:
 * libcuda.so.1 not found". Every call returns 1, or 0 with why[0..n) set.
 * The void * handles are the driver's CUmodule, CUfunction and CUstream. */
typedef struct tilepx_cuda tilepx_cuda;
/* the driver, opened and initialised (cuInit); NULL with why when it cannot be */
tilepx_cuda *tilepx_cuda_open(char *why, size_t n);
/* the same over entry points lookup(ctx, NAME) gives (NAME as the driver
 * exports it, e.g. "cuLaunchKernelEx"): for a program linked against the
 * driver, or host stand-ins in a test (bench/gemm_mock.c) */
tilepx_cuda *tilepx_cuda_open_with(void *(*lookup)(void *ctx, const char *name), void *ctx, char *why, size_t n);
void tilepx_cuda_close(tilepx_cuda *cu);
/* make a context current on the calling thread: the current one if any (the
 * CUDA runtime's, so torch's), else device `device`'s primary context */
int tilepx_cuda_context(tilepx_cuda *cu, int device, char *why, size_t n);
/* PTX text (NUL-terminated) JIT-compiled into a module of the current
 * context (tilepx_cuda_context first); why holds the JIT's log on failure */
int tilepx_cuda_load(tilepx_cuda *cu, const char *ptx, void **module, char *why, size_t n);
int tilepx_cuda_function(tilepx_cuda *cu, void *module, const char *kernel, void **function, char *why, size_t n);
void tilepx_cuda_unload(tilepx_cuda *cu, void *module);

/* a launch's arguments packed: every kernel param's value in ABI order (device
 * pointers, scalars, encoded tensor maps), with the launch's dims. It points
 * into itself: fill it with tilepx_cuda_pack and do not copy it. */
#define TILEPX_MAX_ARGS (TILEPX_MAX_PARAMS + TILEPX_MAX_SCALARS + TILEPX_MAX_TENSOR_MAPS)
#ifdef __cplusplus
#define TILEPX_ALIGN128 alignas(128)
#else
#define TILEPX_ALIGN128 _Alignas(128)
#endif
typedef struct tilepx_packed {
	TILEPX_ALIGN128 unsigned char tensor_maps[TILEPX_MAX_TENSOR_MAPS][128]; /* CUtensorMap, as encoded */
	unsigned long long values[TILEPX_MAX_ARGS]; /* pointers and scalars (little-endian) */
	void *args[TILEPX_MAX_ARGS];                /* cuLaunchKernelEx's kernelParams */
	int nargs;
	unsigned grid[3], block[3], cluster[3];     /* cluster {0, 0, 0}: none */
	unsigned dynamic_shared_bytes;
} tilepx_packed;
/* pack launch l (its values bound: needs_values 0) with pointers[i] the
 * device address of param i (i < npointers = l->nparams): the tensor maps
 * encoded by cuTensorMapEncodeTiled with the record's arguments */
int tilepx_cuda_pack(tilepx_cuda *cu, const tilepx_launch *l, const unsigned long long *pointers, int npointers,
                     tilepx_packed *p, char *why, size_t n);
/* launch a packed kernel on stream (NULL: the legacy default stream) with
 * cuLaunchKernelEx: the cluster dims as an attribute, the dynamic shared
 * memory (past 48 KiB the function's limit raised first). Asynchronous: an
 * error of the kernel itself shows at the stream's next synchronisation. */
int tilepx_cuda_launch(tilepx_cuda *cu, void *function, const tilepx_packed *p, void *stream, char *why, size_t n);
/* pack and launch in one call (the packed arguments on the heap, freed) */
int tilepx_cuda_run(tilepx_cuda *cu, void *function, const tilepx_launch *l, const unsigned long long *pointers,
                    int npointers, void *stream, char *why, size_t n);
/* wait for stream (NULL: the default stream); a kernel's error is reported here */
int tilepx_cuda_sync(tilepx_cuda *cu, void *stream, char *why, size_t n);

/* A GEMM kernel of the family and its launch, chosen for C[M, N] = A[M, K] *
 * B[N, K]^T by tilepx_gemm_choose (docs/language.md, "Choosing a GEMM kernel").
 * Every kernel of the family is a persistent 2-D walk on clusters of 2 CTAs
 * along y: a window of q CTAs along x and p along y (p even) slides over the
 * cdiv(N, bn) column strips and cdiv(M, bm) row bands of C; launch it with
 * the scalars M, N, K, P = p, Q = q (grid q x p, clusters 1 x 2).
 * A split-K kernel (split > 1 or zero_c) has no cluster (cluster 1): its
 * window of q x p CTAs walks (column strip, K slice) pairs, and it adds
 * its partial tiles into C with atomics (red.add): C must hold zeros before
 * every launch (zero_c), and the sum's order varies from run to run (not
 * bit-deterministic on random data; cuBLAS's default GEMMs are). */
typedef struct tilepx_gemm_choice {
	const char *tile;   /* the kernel's .tile, relative to the repository: "bench/gemm_sm90_walk_512x128.tile" */
	const char *kernel; /* its kernel name */
	int bm, bn;         /* the cluster tile (rows of C x columns) */
	int cluster;        /* CTAs in a cluster (along y) */
	int p, q;           /* the window: q CTAs along x, p along y */
	long long tiles;    /* output tiles, cdiv(M, bm) * cdiv(N, bn) */
	long long rounds;   /* the most tiles one cluster walks: cdiv(strips, q) * cdiv(bands, p / 2) */
	double efficiency;  /* tiles / (rounds * clusters): the share of the window's tile slots that hold a tile */
	double cost;        /* the model's time, in MACs of the fastest kernel: rounds * bm * bn * (K + epilogue) / speed */
	char why[320];      /* the rationale: the picked kernel's arithmetic and the runner-up's */
	int split;          /* the K slices each tile's sum is split into (1: the whole K in one CTA) */
	int zero_c;         /* 1: the kernel accumulates into C (C += A B), which must be zeroed before each launch */
	int linear;         /* 1: a linear tile walk (grid 1 x p, p / 2 clusters dealing out every tile): the kernel
	                     * takes M, N, K and P, no Q (q is 1) */
} tilepx_gemm_choice;

/* Picks the kernel and launch for an M x N x K GEMM with dtype_in A and B
 * ("f16", "bf16", "e4m3") and a dtype_out C ("f32", "bf16"), on a device of
 * sm_count SMs (one CTA per SM: each kernel holds ~200 KiB of shared memory).
 * Returns 0 and fills *out; -1 when no kernel of the family computes it (the
 * dtype pair has none, K % 8 != 0 (K % 16 for e4m3), a dim above 65536 or
 * below 1, or fewer than 2 SMs), with out->why saying which. */
int tilepx_gemm_choose(long long M, long long N, long long K, const char *dtype_in, const char *dtype_out,
                       int sm_count, tilepx_gemm_choice *out);

/* ---- Options and structured diagnostics (tilepx_compile_ex) ---- */
/* what the command line's options say, for a compilation through the API;
 * all zero is tilepx_compile's behaviour */
typedef struct tilepx_options {
	const char *target;         /* overrides the file's `target` (NULL: the file's) */
	const char *const *defines; /* [ndefines] "NAME=VALUE" as -D: a constant ('define NAME') or a scalar param pinned */
	int ndefines;
	int lineinfo;               /* .file/.loc lines, as -lineinfo */
	const char *lineinfo_file;  /* the path `.file 1` names (NULL: path as given) */
	int werror;                 /* warnings are errors (-Werror) */
	int no_warnings;            /* warnings are not reported (-w) */
	int max_errors;             /* report the first N errors (0: 20, the default; < 0: all) */
	int diagnostics_json;       /* out->diagnostics is gcc's JSON array (--diagnostics-format=json) */
} tilepx_options;

typedef enum tilepx_severity { TILEPX_ERROR, TILEPX_WARNING, TILEPX_NOTE } tilepx_severity;

/* one diagnostic, as the text form's "FILE:LINE:COL: KIND: MESSAGE" line */
typedef struct tilepx_diagnostic {
	tilepx_severity severity;
	const char *file;    /* the path given (or "<input>") */
	int line, column;    /* 1-based; 0 and 0 for one about the whole input (a -D, a usage error) */
	const char *message; /* without the location, kind and caret */
	int parent;          /* a note: the index of the error or warning it explains; -1 for those and summaries */
	int werror;          /* a warning made an error by werror */
} tilepx_diagnostic;

typedef struct tilepx_diagnostics {
	tilepx_diagnostic *items; /* [n], errors and warnings in order, each followed by its notes */
	int n;
} tilepx_diagnostics;

/* tilepx_compile with options (opts NULL: the defaults). When diags is not
 * NULL it receives the diagnostics as a list too (free it with
 * tilepx_diagnostics_free), whatever the call returns. */
int tilepx_compile_ex(const char *path, const char *src, size_t len, tilepx_mode mode, const tilepx_options *opts,
                      tilepx_result *out, tilepx_diagnostics *diags);
/* tilepx_launch_of with options: the record of the program the options
 * give (its constants' -D values) */
int tilepx_launch_of_ex(const char *path, const char *src, size_t len, const char *kernel, const char *const *sets,
                        int nsets, const tilepx_options *opts, tilepx_launch *out, tilepx_result *diag);
/* releases a list and zeroes it; NULL is allowed */
void tilepx_diagnostics_free(tilepx_diagnostics *d);

/* releases what a result holds and zeroes it; NULL is allowed */
void tilepx_result_free(tilepx_result *r);
/* the library version, "MAJOR.MINOR.PATCH" */
const char *tilepx_version(void);

#ifdef __cplusplus
}
#endif
#endif
