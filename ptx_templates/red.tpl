# global reductions (red.add, red.max: src/variants/red.c): each thread's
# elements combined into global memory with relaxed, gpu-scope atomics.
# f32 add rounds to nearest even and flushes subnormal inputs and results
# to sign-preserving zero (the PTX ISA, red/atom .add.f32); the vector
# forms (sm_90, PTX 8.1) are one atomic per element, the elements one
# aligned run of 8 or 16 bytes. max is the maximum under the total order of
# f32 bit patterns: a value with the sign bit clear goes through max.s32, a
# value with it set through min.u32 (docs/language.md, "Global reductions").
RED_ADD_F32       6.3 all   red.global.add.f32 [$0:a64], $1:r32;
RED_ADD_V2_F32    8.1 sm90  red.global.add.v2.f32 [$0:a64], $1:vec;
RED_ADD_V4_F32    8.1 sm90  red.global.add.v4.f32 [$0:a64], $1:vec;
RED_MAX_S32       6.3 all   red.global.max.s32 [$0:a64], $1:r32;
RED_MIN_U32       6.3 all   red.global.min.u32 [$0:a64], $1:r32;
# the sign test of red.max (the bit pattern as s32), alone or joined to a
# ragged guard
SETP_LT_S32       6.3 all   setp.lt.s32 $0:pred, $1:r32, $2:imm;
SETP_GE_S32       6.3 all   setp.ge.s32 $0:pred, $1:r32, $2:imm;
SETP_LT_AND_S32   6.3 all   setp.lt.and.s32 $0:pred, $1:r32, $2:imm, $3:pred;
SETP_GE_AND_S32   6.3 all   setp.ge.and.s32 $0:pred, $1:r32, $2:imm, $3:pred;
# f16 / bf16 outputs (red.add from f32 registers: cvt.rn.{f16,bf16}x2.f32
# pairs first): .noftz keeps subnormals; each half is added and rounded to
# nearest even in its own type. One word (a pair), or .v2/.v4 of them on
# sm_90 (PTX 8.1); bf16x2 needs sm_90 (PTX 7.8)
RED_ADD_F16X2     6.3 all   red.global.add.noftz.f16x2 [$0:a64], $1:r32;
RED_ADD_V2_F16X2  8.1 sm90  red.global.add.noftz.v2.f16x2 [$0:a64], $1:vec;
RED_ADD_V4_F16X2  8.1 sm90  red.global.add.noftz.v4.f16x2 [$0:a64], $1:vec;
RED_ADD_BF16X2    7.8 sm90  red.global.add.noftz.bf16x2 [$0:a64], $1:r32;
RED_ADD_V2_BF16X2 8.1 sm90  red.global.add.noftz.v2.bf16x2 [$0:a64], $1:vec;
RED_ADD_V4_BF16X2 8.1 sm90  red.global.add.noftz.v4.bf16x2 [$0:a64], $1:vec;
