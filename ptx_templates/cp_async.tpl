# cp.async (LDGSTS), sm_80+; .cg only moves 16 bytes
CP_ASYNC_CG_16             7.0 sm80     space=shared bytes=16                        cp.async.cg.shared.global [$0:a32], [$1:a64], 16;
CP_ASYNC_CA_8              7.0 sm80     space=shared bytes=8                         cp.async.ca.shared.global [$0:a32], [$1:a64], 8;
CP_ASYNC_CA_4              7.0 sm80     space=shared bytes=4                         cp.async.ca.shared.global [$0:a32], [$1:a64], 4;
CP_ASYNC_COMMIT   7.0 sm80 cp.async.commit_group;
CP_ASYNC_WAIT     7.0 sm80 cp.async.wait_group $0:imm;
# zero-fill: the ignore-src predicate (true: the source is not read, the destination gets zeros)
CP_ASYNC_CG_16_ZFILL       7.5 sm80     space=shared bytes=16 zfill=1                cp.async.cg.shared.global [$0:a32], [$1:a64], 16, $2:pred;
CP_ASYNC_CA_8_ZFILL        7.5 sm80     space=shared bytes=8 zfill=1                 cp.async.ca.shared.global [$0:a32], [$1:a64], 8, $2:pred;
CP_ASYNC_CA_4_ZFILL        7.5 sm80     space=shared bytes=4 zfill=1                 cp.async.ca.shared.global [$0:a32], [$1:a64], 4, $2:pred;
