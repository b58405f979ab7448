# reductions (src/reduce.c): f32 combining ops (no .ftz: subnormals kept;
# .rn on add keeps ptxas from contracting) and the lane butterfly
# (mask, clamp 31: the whole warp; every lane of the warp executes it)
ADD_RN_F32        6.3 all  add.rn.f32 $0:r32, $1:r32, $2:r32;
MAX_F32           6.3 all  max.f32 $0:r32, $1:r32, $2:r32;
MIN_F32           6.3 all  min.f32 $0:r32, $1:r32, $2:r32;
SHFL_BFLY_B32     6.3 all  shfl.sync.bfly.b32 $0:r32, $1:r32, $2:imm, $3:imm, $4:imm;
