/* The launch ABI of a kernel entry, described once: its params in PTX order
 * (pointers, then scalars, then tensor maps, each in declaration order), with
 * their PTX names and types, and the launch facts that are not params (block
 * size, cluster dims, dynamic shared memory, .maxnreg). The emitter prints the
 * entry's params from it and names them from it in the prologue; ptxemu binds
 * the PTX names to buffers, values and tensor maps from it; tilepx-run builds
 * the argument array from it; the C API (tilepx_launches) and explain --json
 * number kernel params from it (docs/design.md, "The launch ABI"). */
#ifndef TILEPX_ABI_H
#define TILEPX_ABI_H
#include "tilepx.h"

/* a func (.visible .func, docs/language.md "Device functions") has
 * pointers, then ABI_SHARED (each shared buffer's shared-window address,
 * .u32), ABI_ARG (each arg, .u32), then ABI_LOCAL_IN (its local buffers'
 * registers in, packed); its return param is KernelAbi.ret_* */
typedef enum AbiKind { ABI_POINTER, ABI_SCALAR, ABI_TENSOR_MAP, ABI_SHARED, ABI_ARG, ABI_LOCAL_IN } AbiKind;

typedef struct AbiParam {
	AbiKind kind;
	const char *name;  /* PTX name: K$param_I, K$arg_S, K$tmap_I; a func's K$shared_B, K$arg_A, K$in */
	const char *decl;  /* PTX declaration: ".param .u64 K$param_0", ".param .s32 K$arg_N",
	                      ".param .align 64 .b8 K$tmap_0[128]" */
	int bytes;         /* what the launcher passes by value: 8 (a device pointer), 4 or 8 (a
	                      scalar, little-endian), 128 (a CUtensorMap, 64-byte aligned) */
	bool is_signed;    /* a scalar of type i32/i64 (.s32/.s64) */
	/* pointer: the buffer's param_index (its place among the pointers);
	 * scalar: its index in Kernel.scalars (and bound_vals); tensor map: its
	 * index in kernel_tensor_maps() (Buffer.tma_index); shared: the
	 * buffer's index in Kernel.bufs; arg: its index in Kernel.arg_vars;
	 * local in: 0 */
	int index;
	const Buffer *buf; /* pointer, tensor map, shared: the buffer; scalar, arg, local in: NULL */
} AbiParam;

typedef struct KernelAbi {
	const char *kernel; /* the entry's name */
	AbiParam *params;   /* [nparams], in PTX order */
	int nparams;
	int npointers, nscalars, ntmaps;
	/* a func: its shared addresses and args; its local buffers' bytes in
	 * and out (K_in, K_ret; 0: neither) and the return param */
	bool is_func;
	int nshared, nargs;
	int64_t local_bytes;
	const char *ret_name;           /* K_ret, NULL: none */
	const char *ret_decl;           /* ".param .align 16 .b8 K_ret[R]" */
	int64_t threads;                /* .reqntid */
	int64_t cluster_x, cluster_y;   /* .reqnctapercluster; 0, 0: no cluster */
	int64_t dyn_shared;             /* bytes of dynamic shared memory to pass at launch, 0: none */
	int64_t maxnreg;                /* .maxnreg, 0: none */
} KernelAbi;

/* the ABI of kernel k's entry or func (allocated in a); the grid is not part
 * of it (it may depend on scalar values: Kernel.grid after kernel_bind) */
KernelAbi kernel_abi(Arena *a, const Kernel *k);
/* the param of kind `kind` and index `index` (as AbiParam.index), or NULL */
const AbiParam *abi_param(const KernelAbi *abi, AbiKind kind, int index);
/* its position among the kernel's params (the kernel param index), or -1 */
int abi_position(const KernelAbi *abi, AbiKind kind, int index);
/* a func's local buffer b: its byte offset in K_in and K_ret (its words
 * packed in declaration order, each buffer at a 16-byte offset); b = NULL:
 * their total; 0 for a kernel */
int64_t abi_local_offset(const Kernel *k, const Buffer *b);
#endif
