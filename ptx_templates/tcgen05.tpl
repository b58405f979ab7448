# tensor memory lifecycle and waits (sm_100a class, PTX 8.6)
TC_ALLOC          8.6 tcgen05 tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [$0], $1;
TC_RELINQUISH     8.6 tcgen05 tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;
TC_DEALLOC        8.6 tcgen05 tcgen05.dealloc.cta_group::1.sync.aligned.b32 $0, $1;
TC_FENCE_BEFORE   8.6 tcgen05 tcgen05.fence::before_thread_sync;
TC_FENCE_AFTER    8.6 tcgen05 tcgen05.fence::after_thread_sync;
TC_WAIT_LD        8.6 tcgen05 tcgen05.wait::ld.sync.aligned;
TC_WAIT_ST        8.6 tcgen05 tcgen05.wait::st.sync.aligned;
# tcgen05.ld / tcgen05.st, .32x32b path: one 32-bit column per register, lane = thread
TC_LD_32X32B_X1    8.6 tcgen05 tcgen05.ld.sync.aligned.32x32b.x1.b32 $0, [$1];
TC_LD_32X32B_X2    8.6 tcgen05 tcgen05.ld.sync.aligned.32x32b.x2.b32 $0, [$1];
TC_LD_32X32B_X4    8.6 tcgen05 tcgen05.ld.sync.aligned.32x32b.x4.b32 $0, [$1];
TC_LD_32X32B_X8    8.6 tcgen05 tcgen05.ld.sync.aligned.32x32b.x8.b32 $0, [$1];
TC_LD_32X32B_X16   8.6 tcgen05 tcgen05.ld.sync.aligned.32x32b.x16.b32 $0, [$1];
TC_LD_32X32B_X32   8.6 tcgen05 tcgen05.ld.sync.aligned.32x32b.x32.b32 $0, [$1];
TC_LD_32X32B_X64   8.6 tcgen05 tcgen05.ld.sync.aligned.32x32b.x64.b32 $0, [$1];
TC_LD_32X32B_X128  8.6 tcgen05 tcgen05.ld.sync.aligned.32x32b.x128.b32 $0, [$1];
TC_ST_32X32B_X1    8.6 tcgen05 tcgen05.st.sync.aligned.32x32b.x1.b32 [$0], $1;
TC_ST_32X32B_X2    8.6 tcgen05 tcgen05.st.sync.aligned.32x32b.x2.b32 [$0], $1;
TC_ST_32X32B_X4    8.6 tcgen05 tcgen05.st.sync.aligned.32x32b.x4.b32 [$0], $1;
TC_ST_32X32B_X8    8.6 tcgen05 tcgen05.st.sync.aligned.32x32b.x8.b32 [$0], $1;
TC_ST_32X32B_X16   8.6 tcgen05 tcgen05.st.sync.aligned.32x32b.x16.b32 [$0], $1;
TC_ST_32X32B_X32   8.6 tcgen05 tcgen05.st.sync.aligned.32x32b.x32.b32 [$0], $1;
TC_ST_32X32B_X64   8.6 tcgen05 tcgen05.st.sync.aligned.32x32b.x64.b32 [$0], $1;
TC_ST_32X32B_X128  8.6 tcgen05 tcgen05.st.sync.aligned.32x32b.x128.b32 [$0], $1;
