# barriers
BAR_SYNC          6.3 all  bar.sync 0;
# named barriers (roles): ID 1..15, COUNT threads (a multiple of 32) take part
BAR_SYNC_N        6.3 all  bar.sync $0:imm, $1:r32/imm;
BAR_ARRIVE_N      6.3 all  bar.arrive $0:imm, $1:r32/imm;
# an id computed from wgid (one value per warp: bar is .aligned)
BAR_SYNC_R        6.3 all  bar.sync $0:r32, $1:r32/imm;
BAR_ARRIVE_R      6.3 all  bar.arrive $0:r32, $1:r32/imm;
# register budgets per warpgroup (roles; warpgroup-collective): N in 24..256, a
# multiple of 8; ptxas 13.0 takes them on sm_90a and the 'a'/'f' targets of
# sm_100 and newer (CAP_SETMAXNREG), at PTX 8.0
SETMAXNREG_INC    8.0 setmaxnreg  setmaxnreg.inc.sync.aligned.u32 $0:imm;
SETMAXNREG_DEC    8.0 setmaxnreg  setmaxnreg.dec.sync.aligned.u32 $0:imm;
# one thread of the mask (ptxemu elects the lowest lane; the PTX ISA says only
# that the choice is deterministic); ptxas 13.0: PTX 8.0, sm_90
ELECT_SYNC        8.0 sm90 elect.sync $0:r32|$1:pred, $2:r32/imm;
