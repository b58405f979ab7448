/* bench/gemm_mock.c: the CUDA driver, cuBLAS and cuBLASLt calls that
 * bench/gemm_bench.c makes, done on the host, so that `make bench-gemm-mock`
 * runs the bench without a GPU (CUDA headers only, no CUDA library):
 *
 * - cublasGemmEx and cublasLtMatmul compute the column-major GEMM exactly as
 *   the BLAS defines it (op(A) is m x k with A(i, l) at A[i + l*lda], or at
 *   A[l + i*lda] transposed), in double, and refuse arguments the real ones
 *   refuse (a leading dimension below the stored rows, Lt layouts whose shapes
 *   do not chain; FP8 in cublasGemmEx; FP8 in cuBLASLt other than TN with
 *   leading dimensions a multiple of 16). So the bench's row-major -> column-major mapping, checked
 *   against its own row-major host GEMM, is checked against the BLAS
 *   definition, not against itself.
 * - the tilepx kernel: cuLaunchKernelEx computes C = A B from its first three
 *   pointer arguments, with the shape and dtypes of GEMM_MOCK_KERNEL="M N K
 *   B_NK IN OUT" (IN, OUT: 16F, 16BF, 32F or 8F_E4M3 for IN) and, with GEMM_MOCK_SCALARS=1,
 *   checks that the scalar args and the grid are those of
 *   bench/gemm_mock_runtime.tile at that size; GEMM_MOCK_BUG=1 changes one
 *   element of C, GEMM_MOCK_BUG=2 leaves the last element unwritten, so the
 *   bench's checks are seen to fail; GEMM_MOCK_ACCUMULATE=1 adds A B into C
 *   (as a split-K kernel does), so C must be zeroed first (--zero-c).
 * - events time the host; NVML is whatever dlopen finds (usually nothing). */
#define _GNU_SOURCE
#include "gemm_host.h"

#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda.h>
#include <math.h>
#include <time.h>

/* ---- element access ---- */

static double load(const void *p, size_t i, cudaDataType t)
{
	if (t == CUDA_R_32F) {
		float f;
		memcpy(&f, (const char *)p + 4 * i, 4);
		return f;
	}
	if (t == CUDA_R_8F_E4M3)
		return gb_e4m3_to_f32(((const uint8_t *)p)[i]);
	uint16_t h;
	memcpy(&h, (const char *)p + 2 * i, 2);
	return t == CUDA_R_16BF ? gb_bf16_to_f32(h) : gb_f16_to_f32(h);
}

static void store(void *p, size_t i, cudaDataType t, double v)
{
	if (t == CUDA_R_32F) {
		float f = (float)v;
		memcpy((char *)p + 4 * i, &f, 4);
		return;
	}
	uint16_t h = t == CUDA_R_16BF ? gb_f32_to_bf16((float)v) : gb_f32_to_f16((float)v);
	memcpy((char *)p + 2 * i, &h, 2);
}

static int supported(cudaDataType t)
{
	return t == CUDA_R_32F || t == CUDA_R_16F || t == CUDA_R_16BF;
}

/* C (m x n, ldc) = alpha op(A) op(B) + beta C, column-major, as the BLAS defines it
 * (op(A) and op(B) gathered into dense rows first, only for speed) */
static void blas_gemm(int ta, int tb, long long m, long long n, long long k, float alpha, const void *A,
                      cudaDataType at, long long lda, const void *B, cudaDataType bt, long long ldb, float beta, void *C,
                      cudaDataType ct, long long ldc)
{
	double *oa = malloc(sizeof(double) * (size_t)(m * k + 1)), *ob = malloc(sizeof(double) * (size_t)(n * k + 1));
	if (!oa || !ob)
		abort();
	for (long long i = 0; i < m; i++) /* oa[i][l] = op(A)(i, l) */
		for (long long l = 0; l < k; l++)
			oa[i * k + l] = load(A, (size_t)(ta ? l + i * lda : i + l * lda), at);
	for (long long j = 0; j < n; j++) /* ob[j][l] = op(B)(l, j) */
		for (long long l = 0; l < k; l++)
			ob[j * k + l] = load(B, (size_t)(tb ? j + l * ldb : l + j * ldb), bt);
	for (long long j = 0; j < n; j++)
		for (long long i = 0; i < m; i++) {
			double s = 0;
			for (long long l = 0; l < k; l++)
				s += oa[i * k + l] * ob[j * k + l];
			double old = beta != 0 ? load(C, (size_t)(i + j * ldc), ct) : 0;
			store(C, (size_t)(i + j * ldc), ct, alpha * s + beta * old);
		}
	free(oa);
	free(ob);
}

/* ---- the driver ---- */

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

CUresult cuInit(unsigned flags)
{
	(void)flags;
	return CUDA_SUCCESS;
}
CUresult cuDeviceGetCount(int *n)
{
	*n = 1;
	return CUDA_SUCCESS;
}
CUresult cuDeviceGet(CUdevice *d, int i)
{
	*d = i;
	return CUDA_SUCCESS;
}
CUresult cuDevicePrimaryCtxRetain(CUcontext *c, CUdevice d)
{
	(void)d;
	*c = (CUcontext)(uintptr_t)0x1000;
	return CUDA_SUCCESS;
}
CUresult cuDevicePrimaryCtxRelease(CUdevice d)
{
	(void)d;
	return CUDA_SUCCESS;
}
CUresult cuCtxGetCurrent(CUcontext *c)
{
	*c = (CUcontext)(uintptr_t)0x2000;
	return CUDA_SUCCESS;
}
CUresult cuCtxSetCurrent(CUcontext c)
{
	(void)c;
	return CUDA_SUCCESS;
}
CUresult cuDeviceGetName(char *s, int n, CUdevice d)
{
	(void)d;
	snprintf(s, (size_t)n, "host mock (bench/gemm_mock.c)");
	return CUDA_SUCCESS;
}
CUresult cuDriverGetVersion(int *v)
{
	*v = 0;
	return CUDA_SUCCESS;
}
CUresult cuDeviceGetAttribute(int *v, CUdevice_attribute a, CUdevice d)
{
	(void)d;
	*v = a == CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT ? 132 : 1; /* an H100's SMs, for --auto */
	return CUDA_SUCCESS;
}
CUresult cuDeviceGetPCIBusId(char *s, int n, CUdevice d)
{
	(void)d;
	snprintf(s, (size_t)n, "mock");
	return CUDA_ERROR_NOT_SUPPORTED;
}
CUresult cuGetErrorString(CUresult r, const char **s)
{
	*s = r == CUDA_SUCCESS ? "no error" : "mock error";
	return CUDA_SUCCESS;
}
CUresult cuStreamCreate(CUstream *s, unsigned flags)
{
	(void)flags;
	*s = (CUstream)(uintptr_t)0x2000;
	return CUDA_SUCCESS;
}
CUresult cuStreamDestroy(CUstream s)
{
	(void)s;
	return CUDA_SUCCESS;
}
CUresult cuStreamSynchronize(CUstream s)
{
	(void)s;
	return CUDA_SUCCESS;
}
CUresult cuMemAlloc(CUdeviceptr *p, size_t n)
{
	void *m = malloc(n ? n : 1);
	if (!m)
		return CUDA_ERROR_OUT_OF_MEMORY;
	memset(m, 0x5a, n); /* not zero: a result never written shows */
	*p = (CUdeviceptr)(uintptr_t)m;
	return CUDA_SUCCESS;
}
CUresult cuMemFree(CUdeviceptr p)
{
	free((void *)(uintptr_t)p);
	return CUDA_SUCCESS;
}
CUresult cuMemcpyHtoD(CUdeviceptr d, const void *s, size_t n)
{
	memcpy((void *)(uintptr_t)d, s, n);
	return CUDA_SUCCESS;
}
CUresult cuMemcpyDtoH(void *d, CUdeviceptr s, size_t n)
{
	memcpy(d, (const void *)(uintptr_t)s, n);
	return CUDA_SUCCESS;
}
CUresult cuMemsetD8(CUdeviceptr d, unsigned char v, size_t n)
{
	memset((void *)(uintptr_t)d, v, n);
	return CUDA_SUCCESS;
}
CUresult cuMemsetD32Async(CUdeviceptr d, unsigned v, size_t n, CUstream st)
{
	(void)st;
	for (size_t i = 0; i < n; i++)
		memcpy((char *)(uintptr_t)d + 4 * i, &v, 4);
	return CUDA_SUCCESS;
}

CUresult cuEventCreate(CUevent *e, unsigned flags)
{
	(void)flags;
	*e = malloc(sizeof(double));
	return *e ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}
CUresult cuEventDestroy(CUevent e)
{
	free(e);
	return CUDA_SUCCESS;
}
CUresult cuEventRecord(CUevent e, CUstream s)
{
	(void)s;
	*(double *)(void *)e = now_ms();
	return CUDA_SUCCESS;
}
CUresult cuEventSynchronize(CUevent e)
{
	(void)e;
	return CUDA_SUCCESS;
}
CUresult cuEventElapsedTime(float *ms, CUevent a, CUevent b)
{
	*ms = (float)(*(double *)(void *)b - *(double *)(void *)a);
	return CUDA_SUCCESS;
}

CUresult cuModuleLoadDataEx(CUmodule *m, const void *img, unsigned n, CUjit_option *o, void **v)
{
	(void)n;
	(void)o;
	(void)v;
	if (!strstr((const char *)img, ".entry"))
		return CUDA_ERROR_INVALID_PTX;
	*m = (CUmodule)(uintptr_t)0x3000;
	return CUDA_SUCCESS;
}
CUresult cuModuleUnload(CUmodule m)
{
	(void)m;
	return CUDA_SUCCESS;
}
CUresult cuModuleGetFunction(CUfunction *f, CUmodule m, const char *name)
{
	(void)m;
	(void)name;
	*f = (CUfunction)(uintptr_t)0x4000;
	return CUDA_SUCCESS;
}
CUresult cuFuncSetAttribute(CUfunction f, CUfunction_attribute a, int v)
{
	(void)f;
	(void)a;
	(void)v;
	return CUDA_SUCCESS;
}
CUresult cuTensorMapEncodeTiled(CUtensorMap *m, CUtensorMapDataType t, cuuint32_t rank, void *addr,
                                const cuuint64_t *dims, const cuuint64_t *strides, const cuuint32_t *box,
                                const cuuint32_t *es, CUtensorMapInterleave il, CUtensorMapSwizzle sw,
                                CUtensorMapL2promotion l2, CUtensorMapFloatOOBfill oob)
{
	(void)t, (void)rank, (void)addr, (void)dims, (void)strides, (void)box, (void)es, (void)il, (void)sw, (void)l2,
		(void)oob;
	if ((uintptr_t)m % 64)
		return CUDA_ERROR_INVALID_VALUE; /* the driver wants the map aligned */
	memset(m, 0, sizeof *m);
	return CUDA_SUCCESS;
}

static cudaDataType mock_type(const char *s)
{
	return !strcmp(s, "16F")       ? CUDA_R_16F
	       : !strcmp(s, "16BF")    ? CUDA_R_16BF
	       : !strcmp(s, "8F_E4M3") ? CUDA_R_8F_E4M3
	                               : CUDA_R_32F;
}

/* the "tilepx kernel": row-major C = A B from its first three pointer args */
CUresult cuLaunchKernelEx(const CUlaunchConfig *cfg, CUfunction f, void **args, void **extra)
{
	(void)f;
	(void)extra;
	const char *spec = getenv("GEMM_MOCK_KERNEL"), *bug = getenv("GEMM_MOCK_BUG");
	long long M, N, K;
	int bnk;
	char in[8], out[8];
	if (!spec || sscanf(spec, "%lld %lld %lld %d %7s %7s", &M, &N, &K, &bnk, in, out) != 6)
		return CUDA_ERROR_INVALID_VALUE;
	/* GEMM_MOCK_SCALARS=1: u32 M, N, K follow the three pointers, and the grid is cdiv(N, 64) x cdiv(M, 64) */
	const char *sc = getenv("GEMM_MOCK_SCALARS");
	if (sc && !strcmp(sc, "1") &&
	    (!args[3] || !args[4] || !args[5] || *(uint32_t *)args[3] != M || *(uint32_t *)args[4] != N || *(uint32_t *)args[5] != K ||
	     cfg->gridDimX != (N + 63) / 64 || cfg->gridDimY != (M + 63) / 64))
		return CUDA_ERROR_INVALID_VALUE;
	void *A = (void *)(uintptr_t) * (CUdeviceptr *)args[0], *B = (void *)(uintptr_t) * (CUdeviceptr *)args[1],
	     *C = (void *)(uintptr_t) * (CUdeviceptr *)args[2];
	/* row-major C = A B is column-major C^T = B^T A^T; GEMM_MOCK_ACCUMULATE=1: C += A B (a split-K kernel) */
	const char *acc = getenv("GEMM_MOCK_ACCUMULATE");
	blas_gemm(bnk, 0, N, M, K, 1, B, mock_type(in), bnk ? K : N, A, mock_type(in), K, acc && !strcmp(acc, "1"), C,
	          mock_type(out), N);
	if (bug && !strcmp(bug, "1"))
		store(C, (size_t)(M * N / 2), mock_type(out), load(C, (size_t)(M * N / 2), mock_type(out)) + 1);
	if (bug && !strcmp(bug, "2"))
		store(C, (size_t)(M * N - 1), mock_type(out), NAN);
	return CUDA_SUCCESS;
}

/* ---- cuBLAS ---- */

cublasStatus_t cublasCreate(cublasHandle_t *h)
{
	*h = (cublasHandle_t)(uintptr_t)0x5000;
	return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasDestroy(cublasHandle_t h)
{
	(void)h;
	return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasSetStream(cublasHandle_t h, cudaStream_t s)
{
	(void)h;
	(void)s;
	return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasGetVersion(cublasHandle_t h, int *v)
{
	(void)h;
	*v = 0;
	return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasGemmEx(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
                            const void *alpha, const void *A, cudaDataType at, int lda, const void *B, cudaDataType bt,
                            int ldb, const void *beta, void *C, cudaDataType ct, int ldc, cublasComputeType_t comp,
                            cublasGemmAlgo_t algo)
{
	(void)h;
	(void)algo;
	if (comp != CUBLAS_COMPUTE_32F || !supported(at) || at != bt || !supported(ct))
		return CUBLAS_STATUS_NOT_SUPPORTED;
	/* the BLAS's argument checks: the stored A is m x k (N) or k x m (T) */
	if (m < 0 || n < 0 || k < 0 || lda < (ta == CUBLAS_OP_N ? m : k) || ldb < (tb == CUBLAS_OP_N ? k : n) ||
	    ldc < m || lda < 1 || ldb < 1 || ldc < 1)
		return CUBLAS_STATUS_INVALID_VALUE;
	blas_gemm(ta != CUBLAS_OP_N, tb != CUBLAS_OP_N, m, n, k, *(const float *)alpha, A, at, lda, B, bt, ldb,
	          *(const float *)beta, C, ct, ldc);
	return CUBLAS_STATUS_SUCCESS;
}

/* ---- cuBLASLt ---- */

typedef struct MockDesc {
	int ta, tb;
	int fast_accum_set;
	int epilogue;      /* CUBLASLT_EPILOGUE_DEFAULT, BIAS, RELU_BIAS or GELU_BIAS */
	const void *bias;  /* one value per row of D (column-major) */
	int bias_type;
	const float *scale[2]; /* FP8's A and B scale pointers (NULL: 1.0) */
	float *amax;           /* FP8's AMAX_D_POINTER: max |D| before D's rounding */
} MockDesc;
typedef struct MockLayout {
	cudaDataType t;
	uint64_t rows, cols;
	int64_t ld;
} MockLayout;

cublasStatus_t cublasLtCreate(cublasLtHandle_t *h)
{
	*h = (cublasLtHandle_t)(uintptr_t)0x6000;
	return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasLtDestroy(cublasLtHandle_t h)
{
	(void)h;
	return CUBLAS_STATUS_SUCCESS;
}
size_t cublasLtGetVersion(void)
{
	return 0;
}
cublasStatus_t cublasLtMatmulDescCreate(cublasLtMatmulDesc_t *d, cublasComputeType_t c, cudaDataType_t s)
{
	if (c != CUBLAS_COMPUTE_32F || s != CUDA_R_32F)
		return CUBLAS_STATUS_NOT_SUPPORTED;
	*d = calloc(1, sizeof **d);
	return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasLtMatmulDescDestroy(cublasLtMatmulDesc_t d)
{
	free(d);
	return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasLtMatmulDescSetAttribute(cublasLtMatmulDesc_t d, cublasLtMatmulDescAttributes_t a,
                                              const void *v, size_t n)
{
	MockDesc *m = (MockDesc *)(void *)d->data;
	int32_t op;
	if (a == CUBLASLT_MATMUL_DESC_FAST_ACCUM) { /* int8_t, 0 or 1 */
		if (n != sizeof(int8_t) || *(const int8_t *)v < 0 || *(const int8_t *)v > 1)
			return CUBLAS_STATUS_INVALID_VALUE;
		m->fast_accum_set = 1;
		return CUBLAS_STATUS_SUCCESS;
	}
	if (a == CUBLASLT_MATMUL_DESC_A_SCALE_POINTER || a == CUBLASLT_MATMUL_DESC_B_SCALE_POINTER ||
	    a == CUBLASLT_MATMUL_DESC_AMAX_D_POINTER) {
		if (n != sizeof(void *))
			return CUBLAS_STATUS_INVALID_VALUE;
		void *q;
		memcpy(&q, v, sizeof q);
		if (a == CUBLASLT_MATMUL_DESC_AMAX_D_POINTER)
			m->amax = q;
		else
			m->scale[a == CUBLASLT_MATMUL_DESC_B_SCALE_POINTER] = q;
		return CUBLAS_STATUS_SUCCESS;
	}
	if (a == CUBLASLT_MATMUL_DESC_BIAS_POINTER) {
		if (n != sizeof(void *))
			return CUBLAS_STATUS_INVALID_VALUE;
		memcpy(&m->bias, v, sizeof m->bias);
		return CUBLAS_STATUS_SUCCESS;
	}
	if (n != sizeof op)
		return CUBLAS_STATUS_INVALID_VALUE;
	memcpy(&op, v, sizeof op);
	if (a == CUBLASLT_MATMUL_DESC_EPILOGUE) { /* the epilogues the bench asks for: others are refused */
		if (op != CUBLASLT_EPILOGUE_DEFAULT && op != CUBLASLT_EPILOGUE_BIAS && op != CUBLASLT_EPILOGUE_RELU_BIAS &&
		    op != CUBLASLT_EPILOGUE_GELU_BIAS)
			return CUBLAS_STATUS_NOT_SUPPORTED;
		m->epilogue = op;
		return CUBLAS_STATUS_SUCCESS;
	}
	if (a == CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE) {
		if (!supported((cudaDataType)op))
			return CUBLAS_STATUS_INVALID_VALUE;
		m->bias_type = op;
		return CUBLAS_STATUS_SUCCESS;
	}
	if (a == CUBLASLT_MATMUL_DESC_TRANSA)
		m->ta = op != CUBLAS_OP_N;
	else if (a == CUBLASLT_MATMUL_DESC_TRANSB)
		m->tb = op != CUBLAS_OP_N;
	else
		return CUBLAS_STATUS_INVALID_VALUE;
	return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasLtMatrixLayoutCreate(cublasLtMatrixLayout_t *l, cudaDataType t, uint64_t rows, uint64_t cols,
                                          int64_t ld)
{
	if (ld < (int64_t)rows || !(supported(t) || t == CUDA_R_8F_E4M3))
		return CUBLAS_STATUS_INVALID_VALUE; /* column-major: ld at least the rows */
	*l = calloc(1, sizeof **l);
	*(MockLayout *)(void *)(*l)->data = (MockLayout){t, rows, cols, ld};
	return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasLtMatrixLayoutDestroy(cublasLtMatrixLayout_t l)
{
	free(l);
	return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasLtMatmulPreferenceCreate(cublasLtMatmulPreference_t *p)
{
	*p = calloc(1, sizeof **p);
	return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasLtMatmulPreferenceDestroy(cublasLtMatmulPreference_t p)
{
	free(p);
	return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasLtMatmulPreferenceSetAttribute(cublasLtMatmulPreference_t p,
                                                    cublasLtMatmulPreferenceAttributes_t a, const void *v, size_t n)
{
	(void)p;
	(void)v;
	if (a == CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES && n == sizeof(uint64_t))
		return CUBLAS_STATUS_SUCCESS;
	if (a == CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK && n == sizeof(uint32_t))
		return CUBLAS_STATUS_SUCCESS;
	return CUBLAS_STATUS_INVALID_VALUE;
}

/* the shapes must chain: op(A) m x k, op(B) k x n, C and D m x n */
static int lt_shapes(const MockDesc *d, const MockLayout *a, const MockLayout *b, const MockLayout *c,
                     const MockLayout *dd, uint64_t *m, uint64_t *n, uint64_t *k)
{
	*m = d->ta ? a->cols : a->rows;
	*k = d->ta ? a->rows : a->cols;
	uint64_t kb = d->tb ? b->cols : b->rows;
	*n = d->tb ? b->rows : b->cols;
	/* FP8: TN only (op(A) = A^T, op(B) = B), leading dimensions of 16 bytes, an output of 16 or 32 bits */
	if (a->t == CUDA_R_8F_E4M3 &&
	    (!d->ta || d->tb || a->ld % 16 || b->ld % 16 || c->t == CUDA_R_8F_E4M3 || c->t != dd->t))
		return 0;
	return kb == *k && c->rows == *m && c->cols == *n && dd->rows == *m && dd->cols == *n && a->t == b->t;
}

cublasStatus_t cublasLtMatmulAlgoGetHeuristic(cublasLtHandle_t h, cublasLtMatmulDesc_t op, cublasLtMatrixLayout_t a,
                                              cublasLtMatrixLayout_t b, cublasLtMatrixLayout_t c,
                                              cublasLtMatrixLayout_t d, cublasLtMatmulPreference_t p, int want,
                                              cublasLtMatmulHeuristicResult_t *res, int *got)
{
	(void)h;
	(void)p;
	uint64_t m, n, k;
	const MockDesc *md = (const MockDesc *)(const void *)op->data;
	if (!lt_shapes(md, (MockLayout *)(void *)a->data, (MockLayout *)(void *)b->data, (MockLayout *)(void *)c->data,
	               (MockLayout *)(void *)d->data, &m, &n, &k))
		return CUBLAS_STATUS_INVALID_VALUE;
	/* as the H200's cuBLASLt 13: no AMAX_D_POINTER with a D that is not FP8 (status 7); with
	 * GEMM_MOCK_NO_SCALES=1 no algorithm for scale pointers either (what it answered there) */
	if (md->amax && ((const MockLayout *)(const void *)d->data)->t != CUDA_R_8F_E4M3)
		return CUBLAS_STATUS_INVALID_VALUE;
	const char *ns = getenv("GEMM_MOCK_NO_SCALES");
	if ((md->scale[0] || md->scale[1]) && ns && *ns == '1') {
		*got = 0;
		return CUBLAS_STATUS_SUCCESS;
	}
	*got = want < 3 ? want : 3;
	for (int i = 0; i < *got; i++) {
		memset(&res[i], 0, sizeof res[i]);
		res[i].algo.data[0] = (uint64_t)i;
		res[i].state = CUBLAS_STATUS_SUCCESS;
	}
	return CUBLAS_STATUS_SUCCESS;
}

/* bias per row of D, then ReLU or GELU (tanh form), in f64 from D's rounded values: the
 * rounding of D before the bias is the mock's, close enough for the bench's tolerance */
static void lt_epilogue(const MockDesc *d, void *D, const MockLayout *dd, uint64_t m, uint64_t n)
{
	for (uint64_t j = 0; j < n; j++)
		for (uint64_t i = 0; i < m; i++) {
			size_t at = (size_t)(i + j * (uint64_t)dd->ld);
			double x = load(D, at, dd->t) + load(d->bias, (size_t)i, dd->t);
			if (d->epilogue == CUBLASLT_EPILOGUE_RELU_BIAS)
				x = x > 0 ? x : 0;
			else if (d->epilogue == CUBLASLT_EPILOGUE_GELU_BIAS)
				x = 0.5 * x * (1 + tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)));
			store(D, at, dd->t, x);
		}
}

cublasStatus_t cublasLtMatmul(cublasLtHandle_t h, cublasLtMatmulDesc_t op, const void *alpha, const void *A,
                              cublasLtMatrixLayout_t la, const void *B, cublasLtMatrixLayout_t lb, const void *beta,
                              const void *C, cublasLtMatrixLayout_t lc, void *D, cublasLtMatrixLayout_t ld,
                              const cublasLtMatmulAlgo_t *algo, void *ws, size_t wsn, cudaStream_t st)
{
	(void)h;
	(void)algo;
	(void)ws;
	(void)wsn;
	(void)st;
	const MockDesc *d = (const MockDesc *)(const void *)op->data;
	const MockLayout *a = (const MockLayout *)(const void *)la->data, *b = (const MockLayout *)(const void *)lb->data,
			 *c = (const MockLayout *)(const void *)lc->data, *dd = (const MockLayout *)(const void *)ld->data;
	uint64_t m, n, k;
	if (!lt_shapes(d, a, b, c, dd, &m, &n, &k) || C != D)
		return CUBLAS_STATUS_INVALID_VALUE;
	int fused = d->epilogue && d->epilogue != CUBLASLT_EPILOGUE_DEFAULT; /* 0: never set */
	if (fused && (!d->bias || d->bias_type != (int)dd->t || *(const float *)beta != 0))
		return CUBLAS_STATUS_NOT_SUPPORTED; /* a bias of D's type, no beta: all the bench asks */
	int scaled = d->scale[0] || d->scale[1] || d->amax;
	if (scaled && (a->t != CUDA_R_8F_E4M3 || *(const float *)beta != 0))
		return CUBLAS_STATUS_NOT_SUPPORTED; /* scales and amax: FP8 inputs, no beta (all the bench asks) */
	float s = *(const float *)alpha * (d->scale[0] ? *d->scale[0] : 1) * (d->scale[1] ? *d->scale[1] : 1);
	blas_gemm(d->ta, d->tb, (long long)m, (long long)n, (long long)k, s, A, a->t, a->ld, B, b->t, b->ld,
	          *(const float *)beta, D, dd->t, dd->ld);
	if (d->amax) { /* from D's rounded values: the mock's, within the bench's 2^-7 of the exact */
		double mx = 0;
		for (uint64_t j = 0; j < n; j++)
			for (uint64_t i = 0; i < m; i++) {
				double x = fabs(load(D, (size_t)(i + j * (uint64_t)dd->ld), dd->t));
				mx = x > mx ? x : mx;
			}
		*d->amax = (float)mx;
	}
	if (fused)
		lt_epilogue(d, D, dd, m, n);
	return CUBLAS_STATUS_SUCCESS;
}
