# 32-bit integer address arithmetic and 64-bit address adds
ADD_U32           6.3 all  add.u32 $0, $1, $2;
SUB_U32           6.3 all  sub.u32 $0, $1, $2;
MAX_U32           6.3 all  max.u32 $0, $1, $2;
MUL_LO_U32        6.3 all  mul.lo.u32 $0, $1, $2;
MAD_LO_U32        6.3 all  mad.lo.u32 $0, $1, $2, $3;
MUL_WIDE_U32      6.3 all  mul.wide.u32 $0, $1, $2;
ADD_U64           6.3 all  add.u64 $0, $1, $2;
SHL_B32           6.3 all  shl.b32 $0, $1, $2;
SHR_U32           6.3 all  shr.u32 $0, $1, $2;
AND_B32           6.3 all  and.b32 $0, $1, $2;
OR_B32            6.3 all  or.b32 $0, $1, $2;
XOR_B32           6.3 all  xor.b32 $0, $1, $2;
DIV_U32           6.3 all  div.u32 $0, $1, $2;
REM_U32           6.3 all  rem.u32 $0, $1, $2;
SETP_LT_U32       6.3 all  setp.lt.u32 $0, $1, $2;
SETP_EQ_U32       6.3 all  setp.eq.u32 $0, $1, $2;
SETP_NE_U32       6.3 all  setp.ne.u32 $0, $1, $2;
BFI_B32           6.3 all  bfi.b32 $0, $1, $2, $3, $4;
BFE_U32           6.3 all  bfe.u32 $0, $1, $2, $3;
# byte insert for packing narrow loads into a word: one PRMT where bfi costs ptxas registers
PRMT_B32          6.3 all  prmt.b32 $0, $1, $2, $3;
# runtime extents (docs/language.md "Runtime sizes"): 64-bit row offsets and guards
MAD_WIDE_U32      6.3 all  mad.wide.u32 $0, $1, $2, $3;
CVT_U64_U32       6.3 all  cvt.u64.u32 $0, $1;
CVT_U32_U64       6.3 all  cvt.u32.u64 $0, $1;
SHL_B64           6.3 all  shl.b64 $0, $1, $2;
SETP_GT_S32       6.3 all  setp.gt.s32 $0, $1, $2;
SETP_GT_AND_S32   6.3 all  setp.gt.and.s32 $0, $1, $2, $3;
SETP_LE_S32       6.3 all  setp.le.s32 $0, $1, $2;
SETP_LE_OR_S32    6.3 all  setp.le.or.s32 $0, $1, $2, $3;
