# control flow, special registers, params
LD_PARAM_U64      6.3 all  ld.param.u64 $0:r64, [$1:sym];
LD_PARAM_U32      6.3 all  ld.param.u32 $0:r32, [$1:sym];
# float scalar params (param NAME f32|f16|bf16): f32 bits, or 16 bits zero-extended
LD_PARAM_F32      6.3 all  ld.param.f32 $0:r32, [$1:sym];
LD_PARAM_U16      6.3 all  ld.param.u16 $0:r32, [$1:sym];
LD_PARAM_B32      6.3 all  ld.param.b32 $0:r32, [$1:sym];
ST_PARAM_B32      6.3 all  st.param.b32 [$0:sym], $1:r32/imm;
CVTA_TO_GLOBAL    6.3 all  cvta.to.global.u64 $0:r64, $1:r64/imm;
MOV_TID_X         6.3 all  mov.u32 $0:r32, %tid.x;
MOV_CTAID_X       6.3 all  mov.u32 $0:r32, %ctaid.x;
MOV_CTAID_Y       6.3 all  mov.u32 $0:r32, %ctaid.y;
MOV_NCTAID_X      6.3 all  mov.u32 $0:r32, %nctaid.x;
MOV_NCTAID_Y      6.3 all  mov.u32 $0:r32, %nctaid.y;
MOV_U32           6.3 all  mov.u32 $0:r32, $1:r32/imm/sym;
MOV_B32           6.3 all  mov.b32 $0:r32, $1:r32/imm;
BRA               6.3 all  bra.uni $0:label;
BRA_IF            6.3 all  @$0:pred bra $1:label;
BRA_IF_NOT        6.3 all  @!$0:pred bra $1:label;
RET               6.3 all  ret;
PRAGMA_NOUNROLL   6.3 all  .pragma "nounroll";
