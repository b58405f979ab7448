# reductions (src/front/reduce.c): f32 combining ops (no .ftz: subnormals kept;
# .rn on add keeps ptxas from contracting) and the lane butterfly (lane
# mask, clamp 31: the whole warp; every lane of the warp executes it).
# The f32 combining ops are fmath.tpl's ADD_RN_F32, MAX_F32, MIN_F32.
SHFL_BFLY_B32     6.3 all  shfl.sync.bfly.b32 $0:r32, $1:r32, $2:imm, $3:imm, $4:imm;
