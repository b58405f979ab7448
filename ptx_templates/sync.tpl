# barriers
BAR_SYNC          6.3 all  bar.sync 0;
# named barriers (roles): ID 1..15, COUNT threads (a multiple of 32) take part
BAR_SYNC_N        6.3 all  bar.sync $0, $1;
BAR_ARRIVE_N      6.3 all  bar.arrive $0, $1;
# register budgets per warpgroup (roles; warpgroup-collective)
SETMAXNREG_INC    8.0 sm90a  setmaxnreg.inc.sync.aligned.u32 $0;
SETMAXNREG_DEC    8.0 sm90a  setmaxnreg.dec.sync.aligned.u32 $0;
