#include "twin.h"

KERNEL(128) tc_f16_128x8(const uint16_t *A, uint16_t *B)
{
	__shared__ uint32_t tm;
	const unsigned tid = threadIdx.x, warp = tid / 32;
	if (warp == 0) {
		asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], 32;" ::"r"(smem(&tm)));
		asm volatile("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;");
	}
	asm volatile("tcgen05.fence::before_thread_sync;");
	__syncthreads();
	asm volatile("tcgen05.fence::after_thread_sync;");
	uint32_t taddr;
	asm volatile("ld.shared.b32 %0, [%1];" : "=r"(taddr) : "r"(smem(&tm)));
	uint32_t r[4];
#pragma unroll
	for (int i = 0; i < 4; i += 4)
		ldg(r + i, (const uint32_t *)A + tid * 4 + i, 16);
	const uint32_t ta = taddr + ((uint32_t)(warp & 3) << 21);
	asm volatile("tcgen05.st.sync.aligned.32x32b.x4.b32 [%0], {%1, %2, %3, %4};" ::"r"(ta), "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3]));
	asm volatile("tcgen05.wait::st.sync.aligned;");
	__syncthreads();
	asm volatile("tcgen05.ld.sync.aligned.32x32b.x4.b32 {%0, %1, %2, %3}, [%4];" : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(ta));
	asm volatile("tcgen05.wait::ld.sync.aligned;");
#pragma unroll
	for (int i = 0; i < 4; i += 4)
		stg((uint32_t *)B + tid * 4 + i, r + i, 16);
	asm volatile("tcgen05.fence::before_thread_sync;");
	__syncthreads();
	asm volatile("tcgen05.fence::after_thread_sync;");
	if (warp == 0)
		asm volatile("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, 32;" ::"r"(taddr));
}
