# barriers
BAR_SYNC          6.3 all  bar.sync 0;
# warp roles (issue 26; PTX ISA barrier.cta, elect.sync, setmaxnreg), each
# checked with ptxas 13.0 at its version and target and refused one below.
# Named barriers: id 0..15, a thread count that is a multiple of 32 (ptxas
# rejects other immediates); bar is .aligned: whole warps arrive.
BAR_SYNC_N        6.3 all  bar.sync $0, $1;
BAR_ARRIVE_N      6.3 all  bar.arrive $0, $1;
# the lowest lane of the mask is elected in ptxemu (PTX ISA: deterministic, lane unnamed)
ELECT_SYNC        8.0 sm90 elect.sync $0|$1, $2;
# register budgets per warpgroup: N in 24..256, a multiple of 8 (ptxas checks immediates)
SETMAXNREG_INC    8.0 setmaxnreg  setmaxnreg.inc.sync.aligned.u32 $0;
SETMAXNREG_DEC    8.0 setmaxnreg  setmaxnreg.dec.sync.aligned.u32 $0;
