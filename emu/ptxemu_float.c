/* ptxemu: the f32 compute instructions tilepx's `set` emits (issue 34),
 * on bit patterns. The exact ones are the H100's results bit for bit: IEEE
 * binary32 round to nearest even computed by the host's own binary32
 * arithmetic (C11 with FLT_EVAL_METHOD 0, no contraction: -std=c11, and
 * fmaf's single rounding), subnormals kept (no .ftz), and every NaN a
 * result of arithmetic is the canonical 0x7fffffff (the GPU does not
 * propagate payloads). abs and neg change the sign bit only, except that a
 * NaN gives the canonical NaN too: the PTX ISA leaves their NaN result
 * unspecified, and PTX neg.f32 does not keep a NaN's bits on an A100 (LLVM
 * review 121513: an xor turned into neg broke XLA's NaN sort order);
 * tests/gpu/float_exact_misc.tile pins the H100's. max/min follow
 * the PTX ISA: a NaN operand gives the other one, two give the canonical
 * NaN, +0 > -0. The approximate ones (ex2, lg2, rcp, rsqrt, tanh .approx)
 * are the f32 rounding of the double libm value: within the bounds that
 * docs/ptx-notes.md "Approximate math" documents for the hardware, not the
 * hardware's bits. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ptxemu_float.h"

enum {
	FOP_NONE,
	FOP_ADD, FOP_SUB, FOP_MUL, FOP_FMA, FOP_DIV, FOP_SQRT,
	FOP_MAX, FOP_MIN, FOP_ABS, FOP_NEG,
	FOP_EX2, FOP_LG2, FOP_RCP, FOP_RSQRT, FOP_TANH, FOP_EX2_FTZ,
	FOP_SETP, FOP_SELP, FOP_CVT_E4M3X2, FOP_CVT_E5M2X2, FOP_MOV,
	FOP_CVT_F32_U32, FOP_CVT_F32_S32, FOP_CVT_F32_BF16,
	/* double forms (ptxemu_double_exec) */
	DOP_ADD, DOP_SUB, DOP_MUL, DOP_FMA, DOP_DIV, DOP_SQRT, DOP_ABS, DOP_NEG, DOP_MAX, DOP_MIN, DOP_SETP,
	DOP_SELP, DOP_CVT_F64_F32, DOP_CVT_F32_F64, DOP_CVT_RNI_S32_F64, DOP_CVT_F64_S32, DOP_MOV,
	FOP_SETP_S32, FOP_SETP_U32, /* the integer comparisons of masks (FCMP_EQ..FCMP_GE) */
};

/* setp's comparisons, in the PTX ISA's order (ordered, unordered, num, nan) */
enum { FCMP_EQ, FCMP_NE, FCMP_LT, FCMP_LE, FCMP_GT, FCMP_GE,
       FCMP_EQU, FCMP_NEU, FCMP_LTU, FCMP_LEU, FCMP_GTU, FCMP_GEU, FCMP_NUM, FCMP_NAN };
static const char *const cmp_names[] = {"eq", "ne", "lt", "le", "gt", "ge", "equ",
                                        "neu", "ltu", "leu", "gtu", "geu", "num", "nan"};

static const struct {
	const char *name;
	int kind, nsrc;
} float_ops[] = {
	{"add.rn.f32", FOP_ADD, 2},   {"sub.rn.f32", FOP_SUB, 2},   {"mul.rn.f32", FOP_MUL, 2},
	{"fma.rn.f32", FOP_FMA, 3},   {"div.rn.f32", FOP_DIV, 2},   {"sqrt.rn.f32", FOP_SQRT, 1},
	{"max.f32", FOP_MAX, 2},      {"min.f32", FOP_MIN, 2},      {"abs.f32", FOP_ABS, 1},
	{"neg.f32", FOP_NEG, 1},      {"ex2.approx.f32", FOP_EX2, 1}, {"lg2.approx.f32", FOP_LG2, 1},
	{"rcp.approx.f32", FOP_RCP, 1}, {"rsqrt.approx.f32", FOP_RSQRT, 1}, {"tanh.approx.f32", FOP_TANH, 1},
	{"ex2.approx.ftz.f32", FOP_EX2_FTZ, 1},
	{"selp.b32", FOP_SELP, 3},    {"selp.f32", FOP_SELP, 3},    {"selp.u32", FOP_SELP, 3},
	{"selp.s32", FOP_SELP, 3},    {"mov.f32", FOP_MOV, 1},
	{"cvt.rn.satfinite.e4m3x2.f32", FOP_CVT_E4M3X2, 2},
	{"cvt.rn.satfinite.e5m2x2.f32", FOP_CVT_E5M2X2, 2},
	{"cvt.rn.f32.u32", FOP_CVT_F32_U32, 1}, {"cvt.rn.f32.s32", FOP_CVT_F32_S32, 1},
	{"cvt.f32.bf16", FOP_CVT_F32_BF16, 1},
};

static const struct {
	const char *name;
	int kind, nsrc;
} double_ops[] = {
	{"add.rn.f64", DOP_ADD, 2},   {"sub.rn.f64", DOP_SUB, 2},   {"mul.rn.f64", DOP_MUL, 2},
	{"fma.rn.f64", DOP_FMA, 3},   {"div.rn.f64", DOP_DIV, 2},   {"sqrt.rn.f64", DOP_SQRT, 1},
	{"abs.f64", DOP_ABS, 1},      {"neg.f64", DOP_NEG, 1},      {"max.f64", DOP_MAX, 2},
	{"min.f64", DOP_MIN, 2},      {"selp.f64", DOP_SELP, 3},    {"selp.b64", DOP_SELP, 3},
	{"mov.f64", DOP_MOV, 1},      {"cvt.f64.f32", DOP_CVT_F64_F32, 1}, {"cvt.rn.f32.f64", DOP_CVT_F32_F64, 1},
	{"cvt.rni.s32.f64", DOP_CVT_RNI_S32_F64, 1}, {"cvt.rn.f64.s32", DOP_CVT_F64_S32, 1},
};

FloatOp ptxemu_float_decode(const char *op)
{
	for (size_t i = 0; i < sizeof float_ops / sizeof *float_ops; i++)
		if (!strcmp(op, float_ops[i].name))
			return (FloatOp){float_ops[i].kind, 0, float_ops[i].nsrc, false};
	for (size_t i = 0; i < sizeof double_ops / sizeof *double_ops; i++)
		if (!strcmp(op, double_ops[i].name))
			return (FloatOp){double_ops[i].kind, 0, double_ops[i].nsrc, true};
	if (!strncmp(op, "setp.", 5)) { /* setp.CMP.f32, setp.CMP.f64, setp.CMP.{s32,u32} */
		size_t n = strcspn(op + 5, ".");
		const char *type = op + 5 + n;
		bool f64 = !strcmp(type, ".f64"), s32 = !strcmp(type, ".s32"), u32 = !strcmp(type, ".u32");
		if (strcmp(type, ".f32") && !f64 && !s32 && !u32)
			return (FloatOp){0};
		for (int c = 0; c <= ((s32 || u32) ? FCMP_GE : FCMP_NAN); c++)
			if (strlen(cmp_names[c]) == n && !strncmp(op + 5, cmp_names[c], n))
				return (FloatOp){s32 ? FOP_SETP_S32 : u32 ? FOP_SETP_U32 : f64 ? DOP_SETP : FOP_SETP, c, 2, f64};
	}
	return (FloatOp){0};
}

static float as_float(uint32_t u)
{
	float f;
	memcpy(&f, &u, 4);
	return f;
}

static uint32_t bits_of(float f)
{
	uint32_t u;
	memcpy(&u, &f, 4);
	return isnan(f) ? PTXEMU_CANONICAL_NAN : u;
}

static bool is_nan_bits(uint32_t u) { return (u & 0x7fffffffu) > 0x7f800000u; }

/* max (is_max) or min: a NaN operand gives the other; of two zeros max
 * is +0 unless both are -0, min -0 unless both are +0 */
static uint32_t max_min(uint32_t a, uint32_t b, bool is_max)
{
	if (is_nan_bits(a) && is_nan_bits(b))
		return PTXEMU_CANONICAL_NAN;
	if (is_nan_bits(a))
		return b;
	if (is_nan_bits(b))
		return a;
	if (!((a | b) & 0x7fffffffu)) /* both zeros */
		return is_max ? (a & b) : (a | b);
	float x = as_float(a), y = as_float(b);
	return (is_max ? x > y : x < y) ? a : b;
}

static bool compare(int cmp, double x, double y)
{
	bool unordered = isnan(x) || isnan(y);
	switch (cmp) {
	case FCMP_EQ: return !unordered && x == y;
	case FCMP_NE: return !unordered && x != y;
	case FCMP_LT: return !unordered && x < y;
	case FCMP_LE: return !unordered && x <= y;
	case FCMP_GT: return !unordered && x > y;
	case FCMP_GE: return !unordered && x >= y;
	case FCMP_EQU: return unordered || x == y;
	case FCMP_NEU: return unordered || x != y;
	case FCMP_LTU: return unordered || x < y;
	case FCMP_LEU: return unordered || x <= y;
	case FCMP_GTU: return unordered || x > y;
	case FCMP_GEU: return unordered || x >= y;
	case FCMP_NUM: return !unordered;
	default: return unordered; /* FCMP_NAN */
	}
}

/* the approximate functions: the exact value in double (libm), rounded once to f32 */
static uint32_t approx(int kind, float x)
{
	double d = x, r;
	switch (kind) {
	case FOP_EX2: r = exp2(d); break;
	case FOP_LG2: r = log2(d); break;
	case FOP_RCP: r = 1.0 / d; break;
	case FOP_RSQRT: r = 1.0 / sqrt(d); break;
	default: r = tanh(d); break; /* FOP_TANH */
	}
	return bits_of((float)r);
}

/* ex2.approx.ftz.f32: a subnormal operand reads as 0 (2^0 = 1), a subnormal result is +0 */
static uint32_t ex2_ftz(float x)
{
	uint32_t r = approx(FOP_EX2, fpclassify(x) == FP_SUBNORMAL ? 0.0f : x);
	return fpclassify(as_float(r)) == FP_SUBNORMAL ? 0 : r;
}

uint8_t ptxemu_cvt_fp8_satfinite(uint32_t f32, bool e5m2)
{
	const int mbits = e5m2 ? 2 : 3, bias = e5m2 ? 15 : 7;
	const double maxfinite = e5m2 ? 57344.0 : 448.0;
	uint8_t sign = (uint8_t)(f32 >> 31 << 7);
	float x = as_float(f32);
	if (isnan(x))
		return 0x7f; /* the format's NaN (e4m3 S.1111.111; e5m2 a quiet NaN), positive */
	double a = fabs((double)x); /* exact */
	if (a == 0)
		return sign;
	int e;
	frexp(a, &e); /* a in [2^(e-1), 2^e) */
	int binade = e - 1 < 1 - bias ? 1 - bias : e - 1;
	double quantum = ldexp(1.0, binade - mbits);
	double r = nearbyint(a / quantum) * quantum; /* exact: a / quantum has at most 24 significant bits */
	if (r > maxfinite) /* satfinite: past the largest finite (inf too) saturates */
		r = maxfinite;
	if (r < ldexp(1.0, 1 - bias)) /* subnormal or zero: a count of the smallest quantum */
		return (uint8_t)(sign | (uint8_t)(r / ldexp(1.0, 1 - bias - mbits)));
	frexp(r, &e);
	int field = e - 1 + bias;
	uint8_t mant = (uint8_t)(r / ldexp(1.0, e - 1 - mbits) - (1 << mbits));
	return (uint8_t)(sign | field << mbits | mant);
}

uint32_t ptxemu_float_exec(FloatOp o, uint32_t a, uint32_t b, uint32_t c)
{
	float x = as_float(a), y = as_float(b), z = as_float(c);
	switch (o.kind) {
	case FOP_ADD: return bits_of(x + y);
	case FOP_SUB: return bits_of(x - y);
	case FOP_MUL: return bits_of(x * y);
	case FOP_FMA: return bits_of(fmaf(x, y, z));
	case FOP_DIV: return bits_of(x / y);
	case FOP_SQRT: return bits_of(sqrtf(x));
	case FOP_MAX: return max_min(a, b, true);
	case FOP_MIN: return max_min(a, b, false);
	case FOP_MOV: return a;
	case FOP_CVT_F32_U32: return bits_of((float)a); /* the host's conversion rounds to nearest even */
	case FOP_CVT_F32_S32: return bits_of((float)(int32_t)a);
	case FOP_CVT_F32_BF16: return (a & 0xffffu) << 16; /* exact: the bits move, a NaN keeps its sign and payload (H200: tests/gpu/float_exact_misc.tile) */
	case FOP_ABS: return is_nan_bits(a) ? PTXEMU_CANONICAL_NAN : a & 0x7fffffffu; /* see the header comment */
	case FOP_NEG: return is_nan_bits(a) ? PTXEMU_CANONICAL_NAN : a ^ 0x80000000u;
	case FOP_SETP: return compare(o.cmp, x, y);
	case FOP_SETP_S32: return compare(o.cmp, (double)(int32_t)a, (double)(int32_t)b); /* exact in double */
	case FOP_SETP_U32: return compare(o.cmp, (double)a, (double)b);
	case FOP_SELP: return c ? a : b;
	case FOP_CVT_E4M3X2:
	case FOP_CVT_E5M2X2: { /* the first source in the upper byte */
		bool e5 = o.kind == FOP_CVT_E5M2X2;
		return (uint32_t)ptxemu_cvt_fp8_satfinite(a, e5) << 8 | ptxemu_cvt_fp8_satfinite(b, e5);
	}
	case FOP_EX2: case FOP_LG2: case FOP_RCP: case FOP_RSQRT: case FOP_TANH:
		return approx(o.kind, x);
	case FOP_EX2_FTZ:
		return ex2_ftz(x);
	default: return 0;
	}
}

static double as_double(uint64_t u)
{
	double d;
	memcpy(&d, &u, 8);
	return d;
}

static uint64_t dbits(double d)
{
	uint64_t u;
	memcpy(&u, &d, 8);
	return isnan(d) ? 0x7fffffffffffffffull : u;
}

uint64_t ptxemu_double_exec(FloatOp o, uint64_t a, uint64_t b, uint64_t c)
{
	double x = as_double(a), y = as_double(b), z = as_double(c);
	switch (o.kind) {
	case DOP_ADD: return dbits(x + y);
	case DOP_SUB: return dbits(x - y);
	case DOP_MUL: return dbits(x * y);
	case DOP_FMA: return dbits(fma(x, y, z));
	case DOP_DIV: return dbits(x / y);
	case DOP_SQRT: return dbits(sqrt(x));
	case DOP_ABS: return a & ~(1ull << 63);
	case DOP_NEG: return a ^ 1ull << 63;
	case DOP_MAX: return isnan(x) ? dbits(y) : isnan(y) ? a : dbits(x > y || (x == y && !signbit(x)) ? x : y);
	case DOP_MIN: return isnan(x) ? dbits(y) : isnan(y) ? a : dbits(x < y || (x == y && signbit(x)) ? x : y);
	case DOP_SETP: return compare(o.cmp, x, y);
	case DOP_SELP: return c ? a : b;
	case DOP_MOV: return a;
	case DOP_CVT_F64_F32: return dbits((double)as_float((uint32_t)a)); /* exact */
	case DOP_CVT_F32_F64: return bits_of((float)x);
	case DOP_CVT_RNI_S32_F64: /* to the nearest integer (ties even), saturated; NaN: 0 */
		return isnan(x) ? 0 : x >= 2147483647.0 ? 0x7fffffffu : x <= -2147483648.0 ? 0x80000000u : (uint32_t)(int32_t)nearbyint(x);
	case DOP_CVT_F64_S32: return dbits((double)(int32_t)(uint32_t)a);
	default: return 0;
	}
}

bool ptxemu_float_immediate(const char *s, uint32_t *bits)
{
	char *end;
	if (s[0] == '0' && (s[1] == 'f' || s[1] == 'F')) {
		*bits = (uint32_t)strtoul(s + 2, &end, 16);
		return end - s == 10 && !*end;
	}
	if (s[0] == '0' && (s[1] == 'd' || s[1] == 'D')) {
		uint64_t u = strtoull(s + 2, &end, 16);
		double d;
		memcpy(&d, &u, 8);
		*bits = isnan(d) ? PTXEMU_CANONICAL_NAN : bits_of((float)d);
		return end - s == 18 && !*end;
	}
	if ((s[0] == '-' || s[0] == '+' || s[0] == '.' || (s[0] >= '0' && s[0] <= '9')) && strpbrk(s, ".eE") &&
	    !strpbrk(s, "xX")) {
		double d = strtod(s, &end);
		*bits = bits_of((float)d);
		return !*end;
	}
	return false;
}
