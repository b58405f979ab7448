/* The launch ABI of a kernel entry (src/abi.h). */
#include "abi.h"

#include <string.h>

int64_t abi_local_offset(const Kernel *k, const Buffer *b)
{
	int64_t off = 0;
	if (!k->is_func)
		return 0;
	for (size_t i = 0; i < k->nbufs; i++) {
		const Buffer *l = k->bufs[i];
		if (l->mem != MEM_LOCAL)
			continue;
		if (l == b)
			return off;
		off += ((l->regs * dtype_bytes(l->dt) + 3) / 4 * 4 + 15) / 16 * 16;
	}
	return off;
}

/* a func's params after its pointers: shared addresses, args, the local
 * buffers' registers in; the same bytes come back in K_ret */
static KernelAbi func_abi(Arena *a, const Kernel *k, KernelAbi abi)
{
	abi.is_func = true;
	for (size_t i = 0; i < k->nbufs; i++)
		if (k->bufs[i]->mem == MEM_SHARED) {
			AbiParam *p = &abi.params[abi.nparams++];
			p->kind = ABI_SHARED;
			p->name = arena_printf(a, "%s$shared_%s", k->name, k->bufs[i]->name);
			p->decl = arena_printf(a, ".param .u32 %s", p->name);
			p->bytes = 4;
			p->index = (int)i;
			p->buf = k->bufs[i];
			abi.nshared++;
		}
	for (int i = 0; i < k->nargs; i++) {
		AbiParam *p = &abi.params[abi.nparams++];
		p->kind = ABI_ARG;
		p->name = arena_printf(a, "%s$arg_%s", k->name, k->var_names[k->arg_vars[i]]);
		p->decl = arena_printf(a, ".param .u32 %s", p->name);
		p->bytes = 4;
		p->index = i;
		abi.nargs++;
	}
	abi.local_bytes = abi_local_offset(k, NULL);
	if (abi.local_bytes) {
		AbiParam *p = &abi.params[abi.nparams++];
		p->kind = ABI_LOCAL_IN;
		p->name = arena_printf(a, "%s$in", k->name);
		p->decl = arena_printf(a, ".param .align 16 .b8 %s[%lld]", p->name, (long long)abi.local_bytes);
		p->bytes = (int)abi.local_bytes;
		abi.ret_name = arena_printf(a, "%s$ret", k->name);
		abi.ret_decl = arena_printf(a, ".param .align 16 .b8 %s[%lld]", abi.ret_name, (long long)abi.local_bytes);
	}
	return abi;
}

/* the global buffer passed as pointer i (by param_index) or as tensor map i
   (by tma_index); NULL if none */
static const Buffer *param_buffer(const Kernel *k, AbiKind kind, int i)
{
	for (size_t j = 0; j < k->nbufs; j++) {
		const Buffer *b = k->bufs[j];
		if (b->mem != MEM_GLOBAL)
			continue;
		if (kind == ABI_POINTER ? b->param_index == i : b->tma && b->tma_index == i)
			return b;
	}
	return NULL;
}

KernelAbi kernel_abi(Arena *a, const Kernel *k)
{
	KernelAbi abi = {0};
	abi.kernel = k->name;
	abi.threads = k->threads;
	abi.cluster_x = k->cluster_x;
	abi.cluster_y = k->cluster_x ? k->cluster_y : 0;
	abi.dyn_shared = k->dyn_shared;
	abi.maxnreg = k->maxnreg;
	abi.params = arena_alloc(a, sizeof(AbiParam) * ((size_t)k->nparams + k->nscalars + (size_t)k->ntmaps + k->nbufs +
	                                                (size_t)k->nargs + 2));
	/* pointers, by param_index (declaration order of the global buffers) */
	for (int i = 0; i < k->nparams; i++) {
		AbiParam *p = &abi.params[abi.nparams++];
		p->kind = ABI_POINTER;
		p->name = arena_printf(a, "%s$param_%d", k->name, i);
		p->decl = arena_printf(a, ".param .u64 %s", p->name);
		p->bytes = 8;
		p->index = i;
		p->buf = param_buffer(k, ABI_POINTER, i);
		abi.npointers++;
	}
	if (k->is_func)
		return func_abi(a, k, abi);
	/* scalars after the pointers, in declaration order */
	for (size_t i = 0; i < k->nscalars; i++) {
		const Scalar *sc = &k->scalars[i];
		AbiParam *p = &abi.params[abi.nparams++];
		p->kind = ABI_SCALAR;
		p->name = arena_printf(a, "%s$arg_%s", k->name, sc->name);
		p->is_signed = sc->dt == DT_I32 || sc->dt == DT_I64;
		p->bytes = dtype_bytes(sc->dt);
		if (dtype_is_float_scalar(sc->dt)) /* f32 by value; f16 and bf16 as their 16 bits */
			p->decl = arena_printf(a, ".param .%s %s", sc->dt == DT_F32 ? "f32" : "b16", p->name);
		else
			p->decl = arena_printf(a, ".param .%c%d %s", p->is_signed ? 's' : 'u', p->bytes * 8, p->name);
		p->index = (int)i;
		abi.nscalars++;
	}
	/* tensor maps last, by tma_index (the order of kernel_tensor_maps) */
	for (int i = 0; i < k->ntmaps; i++) {
		AbiParam *p = &abi.params[abi.nparams++];
		p->kind = ABI_TENSOR_MAP;
		p->name = arena_printf(a, "%s$tmap_%d", k->name, i);
		p->decl = arena_printf(a, ".param .align 64 .b8 %s[128]", p->name);
		p->bytes = 128;
		p->index = i;
		p->buf = param_buffer(k, ABI_TENSOR_MAP, i);
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
