/* The launch ABI of a kernel entry (src/abi.h). */
#include "abi.h"

#include <string.h>

KernelAbi kernel_abi(Arena *a, const Kernel *k)
{
	KernelAbi abi = {0};
	abi.kernel = k->name;
	abi.threads = k->threads;
	abi.cluster_x = k->cluster_x;
	abi.cluster_y = k->cluster_x ? k->cluster_y : 0;
	abi.dyn_shared = k->dyn_shared;
	abi.maxnreg = k->maxnreg;
	abi.params = arena_alloc(a, sizeof(AbiParam) * ((size_t)k->nparams + k->nscalars + (size_t)k->ntmaps + 1));
	/* pointers, by param_index (declaration order of the global buffers) */
	for (int i = 0; i < k->nparams; i++) {
		AbiParam *p = &abi.params[abi.nparams++];
		p->kind = ABI_POINTER;
		p->name = arena_printf(a, "%s_param_%d", k->name, i);
		p->decl = arena_printf(a, ".param .u64 %s", p->name);
		p->bytes = 8;
		p->index = i;
		for (size_t j = 0; j < k->nbufs; j++)
			if (k->bufs[j]->mem == MEM_GLOBAL && k->bufs[j]->param_index == i)
				p->buf = k->bufs[j];
		abi.npointers++;
	}
	/* scalars after the pointers, in declaration order */
	for (size_t i = 0; i < k->nscalars; i++) {
		const Scalar *sc = &k->scalars[i];
		AbiParam *p = &abi.params[abi.nparams++];
		p->kind = ABI_SCALAR;
		p->name = arena_printf(a, "%s_arg_%s", k->name, sc->name);
		p->is_signed = sc->dt == DT_I32 || sc->dt == DT_I64;
		p->bytes = dtype_bytes(sc->dt);
		p->decl = arena_printf(a, ".param .%c%d %s", p->is_signed ? 's' : 'u', p->bytes * 8, p->name);
		p->index = (int)i;
		abi.nscalars++;
	}
	/* tensor maps last, by tma_index (the order of kernel_tensor_maps) */
	for (int i = 0; i < k->ntmaps; i++) {
		AbiParam *p = &abi.params[abi.nparams++];
		p->kind = ABI_TENSOR_MAP;
		p->name = arena_printf(a, "%s_tmap_%d", k->name, i);
		p->decl = arena_printf(a, ".param .align 64 .b8 %s[128]", p->name);
		p->bytes = 128;
		p->index = i;
		for (size_t j = 0; j < k->nbufs; j++)
			if (k->bufs[j]->mem == MEM_GLOBAL && k->bufs[j]->tma && k->bufs[j]->tma_index == i)
				p->buf = k->bufs[j];
		abi.ntmaps++;
	}
	return abi;
}

const AbiParam *abi_param(const KernelAbi *abi, AbiKind kind, int index)
{
	int i = abi_position(abi, kind, index);
	return i < 0 ? NULL : &abi->params[i];
}

int abi_position(const KernelAbi *abi, AbiKind kind, int index)
{
	for (int i = 0; i < abi->nparams; i++)
		if (abi->params[i].kind == kind && abi->params[i].index == index)
			return i;
	return -1;
}
