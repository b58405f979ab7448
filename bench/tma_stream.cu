// bench/tma_stream.cu: the baselines for tilepx's TMA streaming copy, in one
// process on one GPU: (1) cuMemcpyDtoD of the same bytes, (2) a hand-written
// CUDA C++ TMA stream (cp.async.bulk.tensor loads completed on mbarriers,
// bulk tensor stores, STAGES shared stages of a BOX_ROWS x 128 u16 box, one
// thread per CTA issues everything, TILES_PER_CTA tiles per CTA). Measured
// on the H100: one tile per CTA (the block scheduler balances) is fastest;
// persistent CTAs lose ~5% to the uneven last wave (docs/benchmarks.md). Both are checked byte
// for byte against the input before they are timed. Prints GB/s counting
// bytes read + written, like tilepx-run --bench.
//   nvcc -O3 -arch=sm_90a bench/tma_stream.cu -lcuda -o build/tma_stream
//   build/tma_stream [MiB=256] [ITERS=20] [STAGES=4] [BOX_ROWS=64] [TILES_PER_CTA=1; 0: persistent] [L2_PROMOTION=3 (256B)]
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CK(x)                                                                                 \
	do {                                                                                      \
		cudaError_t e_ = (x);                                                                 \
		if (e_ != cudaSuccess) {                                                              \
			fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
			exit(1);                                                                          \
		}                                                                                     \
	} while (0)

static const int COLS = 128; // u16 elements per row: 256-byte rows

__device__ __forceinline__ uint32_t smem_u32(const void *p) { return (uint32_t)__cvta_generic_to_shared(p); }

__device__ __forceinline__ void bar_wait(uint32_t bar, uint32_t parity)
{
	asm volatile("{\n\t.reg .pred p;\n"
	             "W: mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n\t"
	             "@!p bra W;\n}" ::"r"(bar),
	             "r"(parity)
	             : "memory");
}

__device__ __forceinline__ void load_tile(const CUtensorMap *in, uint32_t dst, uint32_t bar, int row, uint32_t bytes)
{
	asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes) : "memory");
	asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];" ::"r"(dst),
	             "l"((uint64_t)in), "r"(0), "r"(row), "r"(bar)
	             : "memory");
}

__global__ void __launch_bounds__(32) tma_stream(const __grid_constant__ CUtensorMap in, const __grid_constant__ CUtensorMap out,
                                                 int tiles, int stages, int box_rows)
{
	extern __shared__ __align__(1024) unsigned char smem[];
	if (threadIdx.x != 0)
		return;
	const uint32_t tile_bytes = (uint32_t)box_rows * COLS * 2;
	uint64_t *bars = (uint64_t *)(smem + (size_t)stages * tile_bytes);
	for (int s = 0; s < stages; s++)
		asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem_u32(&bars[s])) : "memory");
	asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
	// this CTA's tiles: blockIdx.x, blockIdx.x + gridDim.x, ...
	const int mine = tiles > (int)blockIdx.x ? (tiles - 1 - (int)blockIdx.x) / (int)gridDim.x + 1 : 0;
	for (int j = 0; j < stages - 1 && j < mine; j++)
		load_tile(&in, smem_u32(smem + (size_t)j * tile_bytes), smem_u32(&bars[j]),
		          ((int)blockIdx.x + j * (int)gridDim.x) * box_rows, tile_bytes);
	for (int j = 0; j < mine; j++) {
		const int s = j % stages;
		bar_wait(smem_u32(&bars[s]), (uint32_t)(j / stages) & 1);
		const int row = ((int)blockIdx.x + j * (int)gridDim.x) * box_rows;
		asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%0, {%1, %2}], [%3];" ::"l"((uint64_t)&out),
		             "r"(0), "r"(row), "r"(smem_u32(smem + (size_t)s * tile_bytes))
		             : "memory");
		asm volatile("cp.async.bulk.commit_group;" ::: "memory");
		// the stage of tile j + stages - 1 held tile j - 1: its store must have read it
		asm volatile("cp.async.bulk.wait_group.read 1;" ::: "memory");
		const int n = j + stages - 1;
		if (n < mine)
			load_tile(&in, smem_u32(smem + (size_t)(n % stages) * tile_bytes), smem_u32(&bars[n % stages]),
			          ((int)blockIdx.x + n * (int)gridDim.x) * box_rows, tile_bytes);
	}
	asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
}

static CUtensorMap make_map(void *base, uint64_t rows, int box_rows, int l2)
{
	CUtensorMap m;
	cuuint64_t dims[2] = {(cuuint64_t)COLS, rows};
	cuuint64_t strides[1] = {(cuuint64_t)COLS * 2};
	cuuint32_t box[2] = {(cuuint32_t)COLS, (cuuint32_t)box_rows};
	cuuint32_t estr[2] = {1, 1};
	CUresult r = cuTensorMapEncodeTiled(&m, CU_TENSOR_MAP_DATA_TYPE_UINT16, 2, base, dims, strides, box, estr,
	                                    CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
	                                    (CUtensorMapL2promotion)l2, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
	if (r != CUDA_SUCCESS) {
		const char *s = "?";
		cuGetErrorString(r, &s);
		fprintf(stderr, "cuTensorMapEncodeTiled: %s\n", s);
		exit(1);
	}
	return m;
}

int main(int argc, char **argv)
{
	const size_t mib = argc > 1 ? (size_t)atoi(argv[1]) : 256;
	const int iters = argc > 2 ? atoi(argv[2]) : 20;
	const int stages = argc > 3 ? atoi(argv[3]) : 4;
	const int box_rows = argc > 4 ? atoi(argv[4]) : 64;
	const int per_cta = argc > 5 ? atoi(argv[5]) : 1; /* tiles per CTA (0: persistent, 2 CTAs per SM) */
	const int l2 = argc > 6 ? atoi(argv[6]) : (int)CU_TENSOR_MAP_L2_PROMOTION_L2_256B;
	const size_t bytes = mib << 20;
	const uint64_t rows = bytes / (COLS * 2);
	const int tiles = (int)(rows / (uint64_t)box_rows);
	CK(cudaSetDevice(0));
	cudaDeviceProp prop;
	CK(cudaGetDeviceProperties(&prop, 0));
	void *in, *out;
	CK(cudaMalloc(&in, bytes));
	CK(cudaMalloc(&out, bytes));
	std::vector<unsigned char> h(bytes), back(bytes);
	for (size_t i = 0; i < bytes; i++)
		h[i] = (unsigned char)(i * 2654435761u >> 13);
	CK(cudaMemcpy(in, h.data(), bytes, cudaMemcpyHostToDevice));
	cudaEvent_t t0, t1;
	CK(cudaEventCreate(&t0));
	CK(cudaEventCreate(&t1));
	auto check = [&](const char *what) {
		CK(cudaMemcpy(back.data(), out, bytes, cudaMemcpyDeviceToHost));
		if (memcmp(back.data(), h.data(), bytes)) {
			size_t i = 0;
			while (back[i] == h[i])
				i++;
			printf("FAIL %s: byte %zu differs\n", what, i);
			exit(1);
		}
		CK(cudaMemset(out, 0, bytes));
	};
	auto report = [&](const char *what, float ms) {
		double s = ms / 1e3 / iters;
		printf("%-34s %8.1f us  %7.0f GB/s (read + written)\n", what, s * 1e6, 2.0 * (double)bytes / s / 1e9);
		return 2.0 * (double)bytes / s / 1e9;
	};
	// cuMemcpyDtoD
	CK(cudaMemcpy(out, in, bytes, cudaMemcpyDeviceToDevice));
	check("cuMemcpyDtoD");
	CK(cudaMemcpy(out, in, bytes, cudaMemcpyDeviceToDevice)); // warm
	CK(cudaEventRecord(t0));
	for (int i = 0; i < iters; i++)
		if (cuMemcpyDtoD((CUdeviceptr)out, (CUdeviceptr)in, bytes) != CUDA_SUCCESS)
			return 1;
	CK(cudaEventRecord(t1));
	CK(cudaEventSynchronize(t1));
	float ms;
	CK(cudaEventElapsedTime(&ms, t0, t1));
	double memcpy_gbs = report("cuMemcpyDtoD", ms);
	// hand-written TMA stream
	CUtensorMap min = make_map(in, rows, box_rows, l2), mout = make_map(out, rows, box_rows, l2);
	const size_t dyn = (size_t)stages * box_rows * COLS * 2 + 8 * (size_t)stages;
	CK(cudaFuncSetAttribute(tma_stream, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)dyn));
	const int grid = per_cta > 0 ? (tiles + per_cta - 1) / per_cta : prop.multiProcessorCount * 2;
	tma_stream<<<grid, 32, dyn>>>(min, mout, tiles, stages, box_rows);
	CK(cudaGetLastError());
	CK(cudaDeviceSynchronize());
	check("CUDA TMA stream");
	tma_stream<<<grid, 32, dyn>>>(min, mout, tiles, stages, box_rows); // warm
	CK(cudaEventRecord(t0));
	for (int i = 0; i < iters; i++)
		tma_stream<<<grid, 32, dyn>>>(min, mout, tiles, stages, box_rows);
	CK(cudaEventRecord(t1));
	CK(cudaEventSynchronize(t1));
	CK(cudaGetLastError());
	CK(cudaEventElapsedTime(&ms, t0, t1));
	char name[96];
	snprintf(name, sizeof name, "CUDA TMA stream (%d x %dx%d u16, %d/CTA)", stages, box_rows, COLS, per_cta);
	double tma_gbs = report(name, ms);
	printf("CUDA TMA stream / cuMemcpyDtoD      %.4f  (grid %d, %zu B dynamic shared)\n", tma_gbs / memcpy_gbs, grid, dyn);
	return 0;
}
