/* ptxemu: the f32 compute instructions (tools/ptxemu_float.c), on bit
 * patterns, with no machine: the interpreter's OPC_FLOAT arm and
 * tests/unit/test_ptxemu_float.c call the same functions. */
#ifndef PTXEMU_FLOAT_H
#define PTXEMU_FLOAT_H
#include <stdbool.h>
#include <stdint.h>

/* the canonical NaN every f32 arithmetic instruction returns for a NaN */
#define PTXEMU_CANONICAL_NAN 0x7fffffffu

/* one modelled instruction: its operation and, for setp, its comparison */
typedef struct FloatOp {
	int kind;  /* FOP_* of ptxemu_float.c; 0: not a form this file models */
	int cmp;   /* setp: FCMP_* of ptxemu_float.c */
	int nsrc;  /* source operands after the destination(s) */
	bool f64;  /* a double form (ptxemu_double_exec): 64-bit operands */
} FloatOp;

/* the form of opcode text op ("add.rn.f32", "setp.ltu.f32", ...); kind 0
 * when op is none of them */
FloatOp ptxemu_float_decode(const char *op);
/* the result of o on sources a, b, c (those past nsrc unused): a 32-bit
 * pattern, a predicate (0/1) for setp, 16 bits for the e4m3x2/e5m2x2 cvt */
uint32_t ptxemu_float_exec(FloatOp o, uint32_t a, uint32_t b, uint32_t c);
/* the result of a double form (o.f64) on 64-bit sources: the f64 forms
 * tests/gpu/approx_bounds.tile's reference uses, IEEE binary64 round to
 * nearest even (a NaN: 0x7fffffffffffffff), and the conversions between
 * f32, f64 and s32 */
uint64_t ptxemu_double_exec(FloatOp o, uint64_t a, uint64_t b, uint64_t c);
/* an f32 source operand's immediate text: 0fXXXXXXXX (the bits), 0dX{16}
 * (a double, rounded to f32), a decimal literal (rounded to f32); false when
 * s is not a float immediate */
bool ptxemu_float_immediate(const char *s, uint32_t *bits);
/* one f32 -> e4m3 (e5m2 when e5m2) code, round to nearest even, satfinite */
uint8_t ptxemu_cvt_fp8_satfinite(uint32_t f32, bool e5m2);
#endif
