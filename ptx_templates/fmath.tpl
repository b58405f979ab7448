# f32 compute of set (docs/language.md "Compute on tiles: set"): values are
# f32 bits in .b32 registers (f32 instructions accept bit-size registers of
# their width). Every rounding operation names .rn: IEEE round to nearest
# even, and an explicit rounding forbids ptxas to contract mul + add into an
# fma. No .ftz anywhere: subnormal inputs and results are kept.
ADD_RN_F32          6.3 all   add.rn.f32 $0:r32, $1:r32, $2:r32;
SUB_RN_F32          6.3 all   sub.rn.f32 $0:r32, $1:r32, $2:r32;
MUL_RN_F32          6.3 all   mul.rn.f32 $0:r32, $1:r32, $2:r32;
FMA_RN_F32          6.3 all   fma.rn.f32 $0:r32, $1:r32, $2:r32, $3:r32;
DIV_RN_F32          6.3 all   div.rn.f32 $0:r32, $1:r32, $2:r32;
SQRT_RN_F32         6.3 all   sqrt.rn.f32 $0:r32, $1:r32;
# max/min: a NaN input gives the other input, two NaNs the canonical NaN
MAX_F32             6.3 all   max.f32 $0:r32, $1:r32, $2:r32;
MIN_F32             6.3 all   min.f32 $0:r32, $1:r32, $2:r32;
# abs/neg: the sign bit (a NaN operand gives the canonical NaN on the H100)
ABS_F32             6.3 all   abs.f32 $0:r32, $1:r32;
NEG_F32             6.3 all   neg.f32 $0:r32, $1:r32;
# the approximate functions (their bounds: docs/ptx-notes.md "Approximate math")
EX2_APPROX_F32      6.3 all   ex2.approx.f32 $0:r32, $1:r32;
EX2_APPROX_FTZ_F32  6.3 all   ex2.approx.ftz.f32 $0:r32, $1:r32;
LG2_APPROX_F32      6.3 all   lg2.approx.f32 $0:r32, $1:r32;
RCP_APPROX_F32      6.3 all   rcp.approx.f32 $0:r32, $1:r32;
RSQRT_APPROX_F32    6.3 all   rsqrt.approx.f32 $0:r32, $1:r32;
TANH_APPROX_F32     7.0 all   tanh.approx.f32 $0:r32, $1:r32;
# a float literal: 0f and the f32 bits in hex
MOV_B32_F32IMM      6.3 all   mov.b32 $0:r32, $1:fimm;
# comparisons: ordered (NaN gives false), != unordered (NaN gives true);
# a negated comparison is its unordered complement (!(a < b) is a >= b or NaN)
SETP_LT_F32         6.3 all   setp.lt.f32 $0:pred, $1:r32, $2:r32;
SETP_LE_F32         6.3 all   setp.le.f32 $0:pred, $1:r32, $2:r32;
SETP_GT_F32         6.3 all   setp.gt.f32 $0:pred, $1:r32, $2:r32;
SETP_GE_F32         6.3 all   setp.ge.f32 $0:pred, $1:r32, $2:r32;
SETP_EQ_F32         6.3 all   setp.eq.f32 $0:pred, $1:r32, $2:r32;
SETP_NEU_F32        6.3 all   setp.neu.f32 $0:pred, $1:r32, $2:r32;
SETP_LTU_F32        6.3 all   setp.ltu.f32 $0:pred, $1:r32, $2:r32;
SETP_LEU_F32        6.3 all   setp.leu.f32 $0:pred, $1:r32, $2:r32;
SETP_GTU_F32        6.3 all   setp.gtu.f32 $0:pred, $1:r32, $2:r32;
SETP_GEU_F32        6.3 all   setp.geu.f32 $0:pred, $1:r32, $2:r32;
SELP_B32            6.3 all   selp.b32 $0:r32, $1:r32, $2:r32, $3:pred;
# masks over coordinates (a signed value against 0 or -1: setp.gt.s32 and
# setp.le.s32 of arith.tpl, setp.eq/ne.u32), and logic on predicates; a
# negation is pushed into the comparisons (De Morgan): no not.pred
AND_PRED            6.3 all   and.pred $0:pred, $1:pred, $2:pred;
OR_PRED             6.3 all   or.pred $0:pred, $1:pred, $2:pred;
# integer scalars read as f32 (exact: check proves them at most 2^24)
CVT_RN_F32_U32      6.3 all   cvt.rn.f32.u32 $0:r32, $1:r32;
CVT_RN_F32_S32      6.3 all   cvt.rn.f32.s32 $0:r32, $1:r32;
# f32 -> fp8 pairs (CVT_RN_SATF_E4M3X2_F32, ...): ptx_templates/cvt.tpl
