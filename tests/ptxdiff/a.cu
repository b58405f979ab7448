// copy a tile through shared memory
extern "C" __global__ void tile_copy(const float4 *__restrict__ src, float4 *__restrict__ dst) {
    __shared__ float4 s[256];
    int t = threadIdx.x;
    s[t] = src[blockIdx.x * 256 + t];
    __syncthreads();
    dst[blockIdx.x * 256 + t] = s[255 - t];
}
