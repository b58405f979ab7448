# mbarrier: 64-bit barrier objects in shared memory with an arrival count, a
# transaction-byte count and a phase bit (PTX ISA, "Parallel Synchronization
# and Communication Instructions: mbarrier"), sm_90 and newer for the
# expect_tx and try_wait forms. Verified with ptxas 13.0.
MBAR_INIT        8.0 sm90  mbarrier.init.shared::cta.b64 [$0:a32], $1:r32/imm;
MBAR_FENCE_INIT  8.0 sm90  fence.mbarrier_init.release.cluster;
MBAR_ARRIVE      8.0 sm90  mbarrier.arrive.shared::cta.b64 $0:r64, [$1:a32];
MBAR_ARRIVE_TX   8.0 sm90  mbarrier.arrive.expect_tx.shared::cta.b64 $0:r64, [$1:a32], $2:r32/imm;
MBAR_TRY_WAIT    8.0 sm90  mbarrier.try_wait.parity.shared::cta.b64 $0:pred, [$1:a32], $2:r32/imm;
# arrivals on a peer CTA's barrier (issue 26): mapa gives its shared::cluster address
MAPA_SHARED_U32  7.8 sm90  mapa.shared::cluster.u32 $0:r32, $1:r32/imm/sym, $2:r32/imm;
MBAR_ARRIVE_REMOTE 8.0 sm90  mbarrier.arrive.shared::cluster.b64 _, [$0:a32];
