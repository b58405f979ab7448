// the same kernel, reformatted, with other local names and an extra helper
// line before it, so line info and register numbering differ

__device__ int unused_helper(int x) { return x * 3; }

extern "C" __global__ void tile_copy(const float4 *__restrict__ in_ptr,
                                     float4 *__restrict__ out_ptr)
{
    __shared__ float4 s[256];
    int lane_index = threadIdx.x;
    s[lane_index] = in_ptr[blockIdx.x * 256 + lane_index];
    __syncthreads();
    out_ptr[blockIdx.x * 256 + lane_index] = s[255 - lane_index];
}
