// Helpers for the CUDA C++ twins of bench/codegen: every memory instruction
// is the one tilepx emits for the .tile twin, written through inline asm;
// the address arithmetic is ordinary C++ that nvcc optimizes.
#pragma once
#include <stdint.h>
#define DEV __device__ __forceinline__
#define KERNEL(T) extern "C" __global__ void __launch_bounds__(T)

DEV uint32_t smem(const void *p) { return (uint32_t)__cvta_generic_to_shared(p); }

// global -> shared and back through registers, BYTES in {1, 2, 4, 8, 16}
template <int BYTES> struct Mov;
template <> struct Mov<16> {
	static DEV void g2s(uint32_t s, const void *g)
	{
		uint32_t a, b, c, d;
		asm volatile("ld.global.v4.b32 {%0, %1, %2, %3}, [%4];" : "=r"(a), "=r"(b), "=r"(c), "=r"(d) : "l"(g));
		asm volatile("st.shared.v4.b32 [%0], {%1, %2, %3, %4};" ::"r"(s), "r"(a), "r"(b), "r"(c), "r"(d));
	}
	static DEV void s2g(void *g, uint32_t s)
	{
		uint32_t a, b, c, d;
		asm volatile("ld.shared.v4.b32 {%0, %1, %2, %3}, [%4];" : "=r"(a), "=r"(b), "=r"(c), "=r"(d) : "r"(s));
		asm volatile("st.global.v4.b32 [%0], {%1, %2, %3, %4};" ::"l"(g), "r"(a), "r"(b), "r"(c), "r"(d));
	}
	static DEV void s2s(uint32_t t, uint32_t s)
	{
		uint32_t a, b, c, d;
		asm volatile("ld.shared.v4.b32 {%0, %1, %2, %3}, [%4];" : "=r"(a), "=r"(b), "=r"(c), "=r"(d) : "r"(s));
		asm volatile("st.shared.v4.b32 [%0], {%1, %2, %3, %4};" ::"r"(t), "r"(a), "r"(b), "r"(c), "r"(d));
	}
};
template <> struct Mov<8> {
	static DEV void g2s(uint32_t s, const void *g)
	{
		uint32_t a, b;
		asm volatile("ld.global.v2.b32 {%0, %1}, [%2];" : "=r"(a), "=r"(b) : "l"(g));
		asm volatile("st.shared.v2.b32 [%0], {%1, %2};" ::"r"(s), "r"(a), "r"(b));
	}
	static DEV void s2g(void *g, uint32_t s)
	{
		uint32_t a, b;
		asm volatile("ld.shared.v2.b32 {%0, %1}, [%2];" : "=r"(a), "=r"(b) : "r"(s));
		asm volatile("st.global.v2.b32 [%0], {%1, %2};" ::"l"(g), "r"(a), "r"(b));
	}
	static DEV void s2s(uint32_t d, uint32_t s)
	{
		uint32_t a, b;
		asm volatile("ld.shared.v2.b32 {%0, %1}, [%2];" : "=r"(a), "=r"(b) : "r"(s));
		asm volatile("st.shared.v2.b32 [%0], {%1, %2};" ::"r"(d), "r"(a), "r"(b));
	}
};
template <> struct Mov<4> {
	static DEV void g2s(uint32_t s, const void *g)
	{
		uint32_t a;
		asm volatile("ld.global.b32 %0, [%1];" : "=r"(a) : "l"(g));
		asm volatile("st.shared.b32 [%0], %1;" ::"r"(s), "r"(a));
	}
	static DEV void s2g(void *g, uint32_t s)
	{
		uint32_t a;
		asm volatile("ld.shared.b32 %0, [%1];" : "=r"(a) : "r"(s));
		asm volatile("st.global.b32 [%0], %1;" ::"l"(g), "r"(a));
	}
};
template <> struct Mov<2> {
	static DEV void g2s(uint32_t s, const void *g)
	{
		uint16_t a;
		asm volatile("ld.global.u16 %0, [%1];" : "=h"(a) : "l"(g));
		asm volatile("st.shared.u16 [%0], %1;" ::"r"(s), "h"(a));
	}
	static DEV void s2g(void *g, uint32_t s)
	{
		uint16_t a;
		asm volatile("ld.shared.u16 %0, [%1];" : "=h"(a) : "r"(s));
		asm volatile("st.global.u16 [%0], %1;" ::"l"(g), "h"(a));
	}
	static DEV void s2s(uint32_t d, uint32_t s)
	{
		uint16_t a;
		asm volatile("ld.shared.u16 %0, [%1];" : "=h"(a) : "r"(s));
		asm volatile("st.shared.u16 [%0], %1;" ::"r"(d), "h"(a));
	}
};
template <> struct Mov<1> {
	static DEV void g2s(uint32_t s, const void *g)
	{
		uint32_t a;
		asm volatile("ld.global.u8 %0, [%1];" : "=r"(a) : "l"(g));
		asm volatile("st.shared.u8 [%0], %1;" ::"r"(s), "r"(a));
	}
	static DEV void s2g(void *g, uint32_t s)
	{
		uint32_t a;
		asm volatile("ld.shared.u8 %0, [%1];" : "=r"(a) : "r"(s));
		asm volatile("st.global.u8 [%0], %1;" ::"l"(g), "r"(a));
	}
};

// registers <-> memory
DEV void ldg(uint32_t *r, const void *g, int bytes)
{
	if (bytes == 16)
		asm volatile("ld.global.v4.b32 {%0, %1, %2, %3}, [%4];" : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "l"(g));
	else if (bytes == 8)
		asm volatile("ld.global.v2.b32 {%0, %1}, [%2];" : "=r"(r[0]), "=r"(r[1]) : "l"(g));
	else
		asm volatile("ld.global.b32 %0, [%1];" : "=r"(r[0]) : "l"(g));
}
DEV void stg(void *g, const uint32_t *r, int bytes)
{
	if (bytes == 16)
		asm volatile("st.global.v4.b32 [%0], {%1, %2, %3, %4};" ::"l"(g), "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3]));
	else if (bytes == 8)
		asm volatile("st.global.v2.b32 [%0], {%1, %2};" ::"l"(g), "r"(r[0]), "r"(r[1]));
	else
		asm volatile("st.global.b32 [%0], %1;" ::"l"(g), "r"(r[0]));
}
DEV uint32_t ldg_u16(const void *g)
{
	uint32_t r;
	asm volatile("ld.global.u16 %0, [%1];" : "=r"(r) : "l"(g));
	return r;
}
DEV void stg_u16(void *g, uint32_t r) { asm volatile("st.global.u16 [%0], %1;" ::"l"(g), "r"(r)); }
DEV void lds(uint32_t *r, uint32_t s, int bytes)
{
	if (bytes == 16)
		asm volatile("ld.shared.v4.b32 {%0, %1, %2, %3}, [%4];" : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(s));
	else if (bytes == 8)
		asm volatile("ld.shared.v2.b32 {%0, %1}, [%2];" : "=r"(r[0]), "=r"(r[1]) : "r"(s));
	else
		asm volatile("ld.shared.b32 %0, [%1];" : "=r"(r[0]) : "r"(s));
}
DEV void sts(uint32_t s, const uint32_t *r, int bytes)
{
	if (bytes == 16)
		asm volatile("st.shared.v4.b32 [%0], {%1, %2, %3, %4};" ::"r"(s), "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3]));
	else if (bytes == 8)
		asm volatile("st.shared.v2.b32 [%0], {%1, %2};" ::"r"(s), "r"(r[0]), "r"(r[1]));
	else
		asm volatile("st.shared.b32 [%0], %1;" ::"r"(s), "r"(r[0]));
}

// cp.async
template <int BYTES> DEV void cp_async(uint32_t s, const void *g);
template <> DEV void cp_async<16>(uint32_t s, const void *g)
{
	asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(s), "l"(g));
}
template <> DEV void cp_async<8>(uint32_t s, const void *g)
{
	asm volatile("cp.async.ca.shared.global [%0], [%1], 8;" ::"r"(s), "l"(g));
}
template <> DEV void cp_async<4>(uint32_t s, const void *g)
{
	asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" ::"r"(s), "l"(g));
}
DEV void cp_async_commit() { asm volatile("cp.async.commit_group;"); }
DEV void cp_async_wait0() { asm volatile("cp.async.wait_group 0;"); }

// ldmatrix / stmatrix m8n8 .b16
template <int N, bool T> DEV void ldsm(uint32_t *r, uint32_t s);
template <> DEV void ldsm<1, false>(uint32_t *r, uint32_t s)
{
	asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];" : "=r"(r[0]) : "r"(s));
}
template <> DEV void ldsm<2, false>(uint32_t *r, uint32_t s)
{
	asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];" : "=r"(r[0]), "=r"(r[1]) : "r"(s));
}
template <> DEV void ldsm<4, false>(uint32_t *r, uint32_t s)
{
	asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
	             : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(s));
}
template <> DEV void ldsm<1, true>(uint32_t *r, uint32_t s)
{
	asm volatile("ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 {%0}, [%1];" : "=r"(r[0]) : "r"(s));
}
template <> DEV void ldsm<2, true>(uint32_t *r, uint32_t s)
{
	asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];" : "=r"(r[0]), "=r"(r[1]) : "r"(s));
}
template <> DEV void ldsm<4, true>(uint32_t *r, uint32_t s)
{
	asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];"
	             : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(s));
}
template <int N, bool T> DEV void stsm(uint32_t s, const uint32_t *r);
template <> DEV void stsm<1, false>(uint32_t s, const uint32_t *r)
{
	asm volatile("stmatrix.sync.aligned.m8n8.x1.shared.b16 [%0], {%1};" ::"r"(s), "r"(r[0]));
}
template <> DEV void stsm<2, false>(uint32_t s, const uint32_t *r)
{
	asm volatile("stmatrix.sync.aligned.m8n8.x2.shared.b16 [%0], {%1, %2};" ::"r"(s), "r"(r[0]), "r"(r[1]));
}
template <> DEV void stsm<4, false>(uint32_t s, const uint32_t *r)
{
	asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};" ::"r"(s), "r"(r[0]), "r"(r[1]),
	             "r"(r[2]), "r"(r[3]));
}
template <> DEV void stsm<1, true>(uint32_t s, const uint32_t *r)
{
	asm volatile("stmatrix.sync.aligned.m8n8.x1.trans.shared.b16 [%0], {%1};" ::"r"(s), "r"(r[0]));
}
template <> DEV void stsm<2, true>(uint32_t s, const uint32_t *r)
{
	asm volatile("stmatrix.sync.aligned.m8n8.x2.trans.shared.b16 [%0], {%1, %2};" ::"r"(s), "r"(r[0]), "r"(r[1]));
}
template <> DEV void stsm<4, true>(uint32_t s, const uint32_t *r)
{
	asm volatile("stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%0], {%1, %2, %3, %4};" ::"r"(s), "r"(r[0]),
	             "r"(r[1]), "r"(r[2]), "r"(r[3]));
}

// dump: thread (ctaid, tid) writes its N words at word (ctaid*T + tid)*N, widest chunks
template <int N> DEV void dump(void *d, const uint32_t *r, int T)
{
	uint32_t *p = (uint32_t *)d + (size_t)(blockIdx.x * T + threadIdx.x) * N;
	constexpr int C = N % 4 == 0 ? 4 : N % 2 == 0 ? 2 : 1;
#pragma unroll
	for (int i = 0; i < N; i += C)
		stg(p + i, r + i, C * 4);
}
