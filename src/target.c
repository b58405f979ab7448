/* Data types, targets and their capabilities, axes and scopes. */
#include "tilepx.h"

#include <string.h>

bool mul_ok(int64_t a, int64_t b, int64_t *r) { return !__builtin_mul_overflow(a, b, r); }
bool add_ok(int64_t a, int64_t b, int64_t *r) { return !__builtin_add_overflow(a, b, r); }

static const struct {
	const char *name;
	int bytes;
} dtypes[DT_COUNT] = {
	[DT_I8] = {"i8", 1},     [DT_U8] = {"u8", 1},     [DT_E4M3] = {"e4m3", 1},
	[DT_E5M2] = {"e5m2", 1}, [DT_I16] = {"i16", 2},   [DT_U16] = {"u16", 2},
	[DT_F16] = {"f16", 2},   [DT_BF16] = {"bf16", 2}, [DT_I32] = {"i32", 4},
	[DT_U32] = {"u32", 4},   [DT_F32] = {"f32", 4},   [DT_TF32] = {"tf32", 4},
	[DT_I64] = {"i64", 8},   [DT_U64] = {"u64", 8},   [DT_F64] = {"f64", 8},
};

int dtype_bytes(DType t) { return dtypes[t].bytes; }
const char *dtype_name(DType t) { return dtypes[t].name; }

bool dtype_parse(const char *s, DType *out)
{
	for (int i = 0; i < DT_COUNT; i++)
		if (!strcmp(s, dtypes[i].name)) {
			*out = (DType)i;
			return true;
		}
	return false;
}

/* lowest .version ptxas 13.0 accepts per target (docs/ptx-notes.md) */
static const Target targets[] = {
	{"sm_75", 75, 0, 63},    {"sm_80", 80, 0, 70},    {"sm_86", 86, 0, 71},
	{"sm_89", 89, 0, 78},    {"sm_90", 90, 0, 78},    {"sm_90a", 90, 'a', 80},
	{"sm_100", 100, 0, 86},  {"sm_100a", 100, 'a', 86}, {"sm_100f", 100, 'f', 88},
	{"sm_103", 103, 0, 88},  {"sm_103a", 103, 'a', 88}, {"sm_103f", 103, 'f', 88},
	{"sm_110", 110, 0, 90},  {"sm_110a", 110, 'a', 90}, {"sm_110f", 110, 'f', 90},
	{"sm_120", 120, 0, 87},  {"sm_120a", 120, 'a', 87}, {"sm_120f", 120, 'f', 88},
	{"sm_121", 121, 0, 88},  {"sm_121a", 121, 'a', 88}, {"sm_121f", 121, 'f', 88},
};

const Target *target_find(const char *name)
{
	for (size_t i = 0; i < sizeof targets / sizeof targets[0]; i++)
		if (!strcmp(name, targets[i].name))
			return &targets[i];
	return NULL;
}

const char *target_list(void)
{
	return "sm_75 sm_80 sm_86 sm_89 sm_90 sm_90a sm_100 sm_100a sm_100f sm_103 sm_103a "
	       "sm_103f sm_110 sm_110a sm_110f sm_120 sm_120a sm_120f sm_121 sm_121a sm_121f";
}

bool target_has(const Target *t, Cap c)
{
	switch (c) {
	case CAP_ALL: return true;
	case CAP_SM80: return t->sm >= 80;
	case CAP_SM90: return t->sm >= 90;
	case CAP_TCGEN05: /* PTX ISA: sm_100a, sm_110a (was sm_101a), sm_100f and sm_110f families; ptxas 13.0 agrees */
		return (t->sm == 100 || t->sm == 103 || t->sm == 110) && t->suffix;
	case CAP_B8MATRIX: /* ptxas 13.0: the tcgen05 targets and sm_120/sm_121 with 'a' or 'f' */
		return target_has(t, CAP_TCGEN05) || ((t->sm == 120 || t->sm == 121) && t->suffix);
	case CAP_MULTICAST: /* the targets ptxas names for .multicast::cluster (others: an advisory) */
		return (t->sm == 90 && t->suffix == 'a') || ((t->sm == 100 || t->sm == 103 || t->sm == 110) && t->suffix);
	case CAP_SM90A: return t->sm == 90 && t->suffix == 'a';
	case CAP_SETMAXNREG: /* ptxas 13.0: sm_90a, sm_100a/f, sm_103a, sm_120a/f, sm_121a; not sm_90, sm_100, sm_120 */
		return (t->sm == 90 && t->suffix == 'a') || (t->sm >= 100 && t->suffix);
	case CAP_COUNT: break;
	}
	return false;
}

/* the opt-in dynamic shared memory per CTA (CUDA programming guide, compute
 * capabilities table): 227 KiB on sm_90/sm_100-class, 163 KiB on sm_80,
 * 99 KiB on sm_86/89/120-class, 64 KiB on sm_75 */
int64_t target_max_shared(const Target *t)
{
	if (t->sm == 90 || (t->sm >= 100 && t->sm < 120))
		return 227 * 1024;
	if (t->sm == 80)
		return 163 * 1024;
	if (t->sm == 75)
		return 64 * 1024;
	return 99 * 1024;
}

const char *cap_name(Cap c)
{
	static const char *names[CAP_COUNT] = {
#define CAPABILITY(tpl, id, targets) [id] = targets,
#include "../ptx_templates/caps.def"
#undef CAPABILITY
	};
	return names[c];
}

static const char *axis_names[AX_COUNT] = {
	"m", "laneid", "warpid", "wid_in_wg", "tid_in_wg", "wgid", "tx", "TLane", "TCol",
};

const char *axis_name(Axis a) { return axis_names[a]; }

bool axis_parse(const char *s, Axis *out)
{
	for (int i = 1; i < AX_COUNT; i++)
		if (!strcmp(s, axis_names[i])) {
			*out = (Axis)i;
			return true;
		}
	return false;
}

bool axis_is_thread(Axis a) { return a >= AX_LANEID && a <= AX_TX; }

const char *scope_name(Scope s)
{
	static const char *n[SC_COUNT] = {"thread", "warp", "warpgroup", "cta"};
	return n[s];
}

const char *mem_name(Mem m)
{
	static const char *n[] = {"global", "shared", "local", "tmem"};
	return n[m];
}

Axis scope_thread_axis(Scope s)
{
	switch (s) {
	case SC_WARP: return AX_LANEID;
	case SC_WARPGROUP: return AX_TID_IN_WG;
	case SC_CTA: return AX_TX;
	default: return AX_M;
	}
}

int64_t scope_threads(Scope s, int64_t cta_threads)
{
	switch (s) {
	case SC_THREAD: return 1;
	case SC_WARP: return 32;
	case SC_WARPGROUP: return 128;
	default: return cta_threads;
	}
}

int64_t shared_align(const Buffer *b)
{
	int64_t align = b->tma_shared ? 128 : 16; /* TMA's shared addresses are 128-byte aligned */
	if (b->sw_auto)
		return 1024; /* the span of the widest candidate (128-byte swizzle over 16-byte chunks) */
	if (b->layout.sw.on) {
		int64_t span = ((int64_t)1 << (b->layout.sw.p + b->layout.sw.w + b->layout.sw.a)) * dtype_bytes(b->dt);
		while (align < span && align < 1024)
			align *= 2;
	}
	return align;
}
