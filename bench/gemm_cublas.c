/* bench/gemm_cublas.c: cuBLAS's time for the same GEMM as
 * examples/gemm_f16_mma.tile, C [M, N] f32 = A [M, K] f16 * B [K, N] f16
 * (row-major; cuBLAS computes C^T = B^T A^T column-major), through
 * cublasGemmEx with CUBLAS_COMPUTE_32F, for bench/gemm.sh.
 *   gemm_cublas [M N K [ITERS]]
 * Prints one BENCH line: microseconds per call and TFLOPS (2*M*N*K flops). */
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define CK(x)                                                                           \
	do {                                                                            \
		int e_ = (int)(x);                                                      \
		if (e_) {                                                               \
			fprintf(stderr, "gemm_cublas: %s failed (%d)\n", #x, e_);      \
			return 1;                                                       \
		}                                                                       \
	} while (0)

int main(int argc, char **argv)
{
	long M = 4096, N = 4096, K = 4096, iters = 20;
	if (argc >= 4) {
		M = atol(argv[1]);
		N = atol(argv[2]);
		K = atol(argv[3]);
	}
	if (argc >= 5)
		iters = atol(argv[4]);
	size_t na = (size_t)(M * K), nb = (size_t)(K * N), nc = (size_t)(M * N);
	uint16_t *h = malloc(sizeof(uint16_t) * (na > nb ? na : nb));
	static const uint16_t small[5] = {0xc000, 0xbc00, 0x0000, 0x3c00, 0x4000}; /* -2 .. 2 in f16 */
	for (size_t i = 0; i < (na > nb ? na : nb); i++)
		h[i] = small[(i * 2654435761u >> 7) % 5];
	void *A, *B, *C;
	CK(cudaMalloc(&A, na * 2));
	CK(cudaMalloc(&B, nb * 2));
	CK(cudaMalloc(&C, nc * 4));
	CK(cudaMemcpy(A, h, na * 2, cudaMemcpyHostToDevice));
	CK(cudaMemcpy(B, h, nb * 2, cudaMemcpyHostToDevice));
	cublasHandle_t handle;
	CK(cublasCreate(&handle));
	float alpha = 1, beta = 0;
#define GEMM()                                                                                                  \
	cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, (int)N, (int)M, (int)K, &alpha, B, CUDA_R_16F, (int)N, A, \
	             CUDA_R_16F, (int)K, &beta, C, CUDA_R_32F, (int)N, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT)
	for (int w = 0; w < 3; w++)
		CK(GEMM());
	cudaEvent_t a, b;
	CK(cudaEventCreate(&a));
	CK(cudaEventCreate(&b));
	CK(cudaEventRecord(a, 0));
	for (long r = 0; r < iters; r++)
		CK(GEMM());
	CK(cudaEventRecord(b, 0));
	CK(cudaEventSynchronize(b));
	float ms = 0;
	CK(cudaEventElapsedTime(&ms, a, b));
	double us = ms * 1000.0 / (double)iters;
	printf("BENCH cublasGemmEx f16 x f16 -> f32 (compute 32F) %ldx%ldx%ld: %.2f us per call, %.1f TFLOPS\n", M, N, K,
	       us, 2.0 * (double)M * (double)N * (double)K / (us * 1e6));
	cublasDestroy(handle);
	cudaFree(A);
	cudaFree(B);
	cudaFree(C);
	free(h);
	return 0;
}
