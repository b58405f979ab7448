# register-to-register copies across lanes (docs/language.md "Register-to-register
# copies", the regshfl variant): every lane of the warp reads one 32-bit
# register of the lane its index names (c = 31: the whole warp; full membermask)
SHFL_SYNC_IDX_B32  6.0 all  shfl.sync.idx.b32 $0:r32, $1:r32, $2:r32/imm, $3:imm, $4:imm;
