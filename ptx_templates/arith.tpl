# 32-bit integer address arithmetic and 64-bit address adds
ADD_U32           6.3 all  add.u32 $0:r32, $1:r32/imm, $2:r32/imm;
SUB_U32           6.3 all  sub.u32 $0:r32, $1:r32/imm, $2:r32/imm;
MAX_U32           6.3 all  max.u32 $0:r32, $1:r32/imm, $2:r32/imm;
# repeat counts computed at the loop head (min, max of signed terms)
MIN_S32           6.3 all  min.s32 $0:r32, $1:r32/imm, $2:r32/imm;
MAX_S32           6.3 all  max.s32 $0:r32, $1:r32/imm, $2:r32/imm;
MUL_LO_U32        6.3 all  mul.lo.u32 $0:r32, $1:r32/imm, $2:r32/imm;
MAD_LO_U32        6.3 all  mad.lo.u32 $0:r32, $1:r32/imm, $2:r32/imm, $3:r32/imm;
MUL_WIDE_U32      6.3 all  mul.wide.u32 $0:r64, $1:r32/imm, $2:r32/imm;
ADD_U64           6.3 all  add.u64 $0:r64, $1:r64/imm, $2:r64/imm;
SHL_B32           6.3 all  shl.b32 $0:r32, $1:r32/imm, $2:r32/imm;
SHR_U32           6.3 all  shr.u32 $0:r32, $1:r32/imm, $2:r32/imm;
AND_B32           6.3 all  and.b32 $0:r32, $1:r32/imm, $2:r32/imm;
OR_B32            6.3 all  or.b32 $0:r64, $1:r64/imm, $2:r32/imm;
XOR_B32           6.3 all  xor.b32 $0:r32, $1:r32/imm, $2:r32/imm;
DIV_U32           6.3 all  div.u32 $0:r32, $1:r32/imm, $2:r32/imm;
REM_U32           6.3 all  rem.u32 $0:r32, $1:r32/imm, $2:r32/imm;
SETP_LT_U32       6.3 all  setp.lt.u32 $0:pred, $1:r32/imm, $2:r32/imm;
SETP_EQ_U32       6.3 all  setp.eq.u32 $0:pred, $1:r32/imm, $2:r32/imm;
SETP_NE_U32       6.3 all  setp.ne.u32 $0:pred, $1:r32/imm, $2:r32/imm;
BFI_B32           6.3 all  bfi.b32 $0:r32, $1:r32/imm, $2:r32/imm, $3:r32/imm, $4:r32/imm;
BFE_U32           6.3 all  bfe.u32 $0:r32, $1:r32/imm, $2:r32/imm, $3:r32/imm;
# byte insert for packing narrow loads into a word: one PRMT where bfi costs ptxas registers
PRMT_B32          6.3 all  prmt.b32 $0:r32, $1:r32/imm, $2:r32/imm, $3:r32/imm;
# runtime extents (docs/language.md "Runtime sizes"): 64-bit row offsets and guards
MAD_WIDE_U32      6.3 all  mad.wide.u32 $0:r64, $1:r32/imm, $2:r32/imm, $3:r64/imm;
CVT_U64_U32       6.3 all  cvt.u64.u32 $0:r64, $1:r32/imm;
CVT_U32_U64       6.3 all  cvt.u32.u64 $0:r32, $1:r64/imm;
SHL_B64           6.3 all  shl.b64 $0:r64, $1:r64/imm, $2:r32/imm;
# the slab of a rank-3..5 param: outer index times the extents below it, 64-bit
MAD_LO_U64        6.3 all  mad.lo.u64 $0:r64, $1:r64/imm, $2:r64/imm, $3:r64/imm;
SETP_GT_S32       6.3 all  setp.gt.s32 $0:pred, $1:r32/imm, $2:r32/imm;
SETP_GT_AND_S32   6.3 all  setp.gt.and.s32 $0:pred, $1:r32/imm, $2:r32/imm, $3:pred;
SETP_LE_S32       6.3 all  setp.le.s32 $0:pred, $1:r32/imm, $2:r32/imm;
SETP_LE_OR_S32    6.3 all  setp.le.or.s32 $0:pred, $1:r32/imm, $2:r32/imm, $3:pred;
