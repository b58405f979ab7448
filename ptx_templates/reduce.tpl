# reductions (src/reduce.c): f32 combining ops (no .ftz: subnormals kept;
# .rn on add keeps ptxas from contracting) and the lane butterfly (lane
# mask, clamp 31: the whole warp; every lane of the warp executes it).
# The f32 rows repeat the text of the compute branch's fmath.tpl under
# their own names so that both branches merge; once merged, reduce.c may
# use FORM_ADD_RN_F32 / FORM_MAX_F32 / FORM_MIN_F32 and these three go.
RED_ADD_RN_F32    6.3 all  add.rn.f32 $0:r32, $1:r32, $2:r32;
RED_MAX_F32       6.3 all  max.f32 $0:r32, $1:r32, $2:r32;
RED_MIN_F32       6.3 all  min.f32 $0:r32, $1:r32, $2:r32;
SHFL_BFLY_B32     6.3 all  shfl.sync.bfly.b32 $0:r32, $1:r32, $2:imm, $3:imm, $4:imm;
