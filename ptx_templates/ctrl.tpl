# control flow, special registers, params
LD_PARAM_U64      6.3 all  ld.param.u64 $0, [$1];
LD_PARAM_U32      6.3 all  ld.param.u32 $0, [$1];
LD_PARAM_B32      6.3 all  ld.param.b32 $0, [$1];
ST_PARAM_B32      6.3 all  st.param.b32 [$0], $1;
CVTA_TO_GLOBAL    6.3 all  cvta.to.global.u64 $0, $1;
MOV_TID_X         6.3 all  mov.u32 $0, %tid.x;
MOV_CTAID_X       6.3 all  mov.u32 $0, %ctaid.x;
MOV_CTAID_Y       6.3 all  mov.u32 $0, %ctaid.y;
MOV_NCTAID_X      6.3 all  mov.u32 $0, %nctaid.x;
MOV_NCTAID_Y      6.3 all  mov.u32 $0, %nctaid.y;
MOV_U32           6.3 all  mov.u32 $0, $1;
MOV_B32           6.3 all  mov.b32 $0, $1;
BRA               6.3 all  bra.uni $0;
BRA_IF            6.3 all  @$0 bra $1;
BRA_IF_NOT        6.3 all  @!$0 bra $1;
RET               6.3 all  ret;
PRAGMA_NOUNROLL   6.3 all  .pragma "nounroll";
