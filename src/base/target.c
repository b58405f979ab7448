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
bool dtype_is_float_scalar(DType t) { return t == DT_F32 || t == DT_F16 || t == DT_BF16; }
const char *dtype_name(DType t) { return dtypes[t].name; }

/* the bits of integer v as a binary float of mbits mantissa and ebits
 * exponent bits (bias ebias, emax the largest biased exponent of a finite
 * value), sign on top; false if v is not exact in it */
static bool small_float_bits(int64_t v, int mbits, int ebits, int ebias, int emax, uint64_t *out)
{
	int64_t mag = v < 0 ? -v : v;
	uint64_t sign = v < 0 ? (uint64_t)1 << (mbits + ebits) : 0;
	if (mag == 0) {
		*out = sign;
		return true;
	}
	int e = 0;
	while ((mag >> e) > 1)
		e++;
	if (e > mbits && (mag & (((int64_t)1 << (e - mbits)) - 1)))
		return false;
	if (e + ebias > emax)
		return false;
	uint64_t frac = e > mbits ? (uint64_t)(mag >> (e - mbits)) : (uint64_t)(mag << (mbits - e));
	frac &= ((uint64_t)1 << mbits) - 1;
	*out = sign | ((uint64_t)(e + ebias) << mbits) | frac;
	return true;
}

/* the bits of integer v as one element of dt; false if not exact */
bool dtype_int_value(DType dt, int64_t v, uint64_t *out)
{
	switch (dt) {
	case DT_F32: case DT_TF32: {
		float f = (float)v;
		if ((int64_t)f != v)
			return false;
		uint32_t u;
		memcpy(&u, &f, 4);
		*out = u;
		return true;
	}
	case DT_F64: {
		double f = (double)v;
		if ((int64_t)f != v)
			return false;
		memcpy(out, &f, 8);
		return true;
	}
	case DT_F16: return small_float_bits(v, 10, 5, 15, 30, out);
	case DT_BF16: return small_float_bits(v, 7, 8, 127, 254, out);
	/* 8-bit floats: sign, exponent (bias 7 / 15), 3 / 2 mantissa bits; e4m3
	 * has no infinities, so its top exponent holds finite values */
	case DT_E4M3: /* ... except S.1111.111, its NaN: 480 rounds there and is not a value */
		return small_float_bits(v, 3, 4, 7, 15, out) && (*out & 0x7f) != 0x7f;
	case DT_E5M2: return small_float_bits(v, 2, 5, 15, 30, out);
	default: {
		int bits = dtype_bytes(dt) * 8;
		bool is_signed = dt == DT_I8 || dt == DT_I16 || dt == DT_I32 || dt == DT_I64;
		if (bits < 64) {
			int64_t lo = is_signed ? -((int64_t)1 << (bits - 1)) : 0;
			int64_t hi = is_signed ? ((int64_t)1 << (bits - 1)) - 1 : ((int64_t)1 << bits) - 1;
			if (v < lo || v > hi)
				return false;
			*out = (uint64_t)v & ((((uint64_t)1) << bits) - 1);
		} else {
			*out = (uint64_t)v;
		}
		return dt != DT_E4M3 && dt != DT_E5M2 ? true : v == 0;
	}
	}
}

uint64_t dtype_int_bits(DType dt, int64_t v)
{
	uint64_t b = 0;
	dtype_int_value(dt, v, &b);
	return b;
}

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
