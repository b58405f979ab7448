# TMA (the tensor memory accelerator, cp.async.bulk.tensor) and the bulk
# async-group forms, sm_90 and newer. The tensor-map operand is the generic
# address of the kernel's .param tensor map (cvta.param); ptxas rejects the
# bare param symbol there ("state space mismatch"). Loads complete on an
# mbarrier (complete_tx::bytes); stores join the thread's bulk async-group.
# Verified with ptxas 13.0 for sm_90, sm_90a, sm_100a and sm_120.
TMA_LOAD_1D     8.0 sm90 fam=tma_load rank=1   cp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [$0:a32], [$1:r64/imm, {$2:r32/imm}], [$3:a32];
TMA_LOAD_2D     8.0 sm90 fam=tma_load rank=2   cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [$0:a32], [$1:r64/imm, {$2:r32/imm, $3:r32/imm}], [$4:a32];
TMA_LOAD_3D     8.0 sm90 fam=tma_load rank=3   cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [$0:a32], [$1:r64/imm, {$2:r32/imm, $3:r32/imm, $4:r32/imm}], [$5:a32];
TMA_LOAD_4D     8.0 sm90 fam=tma_load rank=4   cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [$0:a32], [$1:r64/imm, {$2:r32/imm, $3:r32/imm, $4:r32/imm, $5:r32/imm}], [$6:a32];
TMA_LOAD_5D     8.0 sm90 fam=tma_load rank=5   cp.async.bulk.tensor.5d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [$0:a32], [$1:r64/imm, {$2:r32/imm, $3:r32/imm, $4:r32/imm, $5:r32/imm, $6:r32/imm}], [$7:a32];
TMA_STORE_1D    8.0 sm90 fam=tma_store rank=1  cp.async.bulk.tensor.1d.global.shared::cta.tile.bulk_group [$0:r64, {$1:r32/imm}], [$2:a32];
TMA_STORE_2D    8.0 sm90 fam=tma_store rank=2  cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [$0:r64, {$1:r32/imm, $2:r32/imm}], [$3:a32];
TMA_STORE_3D    8.0 sm90 fam=tma_store rank=3  cp.async.bulk.tensor.3d.global.shared::cta.tile.bulk_group [$0:r64, {$1:r32/imm, $2:r32/imm, $3:r32/imm}], [$4:a32];
TMA_STORE_4D    8.0 sm90 fam=tma_store rank=4  cp.async.bulk.tensor.4d.global.shared::cta.tile.bulk_group [$0:r64, {$1:r32/imm, $2:r32/imm, $3:r32/imm, $4:r32/imm}], [$5:a32];
TMA_STORE_5D    8.0 sm90 fam=tma_store rank=5  cp.async.bulk.tensor.5d.global.shared::cta.tile.bulk_group [$0:r64, {$1:r32/imm, $2:r32/imm, $3:r32/imm, $4:r32/imm, $5:r32/imm}], [$6:a32];
TMAP_ADDR       7.8 sm90  mov.b64 $0:r64, $1:sym;
CVTA_PARAM      7.8 sm90  cvta.param.u64 $0:r64, $1:r64/imm;
BULK_COMMIT     8.0 sm90  cp.async.bulk.commit_group;
BULK_WAIT       8.0 sm90  cp.async.bulk.wait_group $0:imm;
BULK_WAIT_READ  8.0 sm90  cp.async.bulk.wait_group.read $0:imm;
FENCE_PROXY_ASYNC 8.0 sm90 fence.proxy.async.shared::cta;
# Non-tensor bulk copies: contiguous bytes (a multiple of 16, 16-byte aligned
# addresses), the load completing on an mbarrier, the store in a bulk group.
BULK_LOAD       8.0 sm90  cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [$0:a32], [$1:a64], $2:r32/imm, [$3:a32];
BULK_STORE      8.0 sm90  cp.async.bulk.global.shared::cta.bulk_group [$0:a64], [$1:a32], $2:r32/imm;
# Multicast loads (thread-block clusters): the box lands at the same shared
# offset in every CTA of the 16-bit ctaMask (bit i = %cluster_ctarank i) and
# completes its bytes on each one's mbarrier at the same offset. ptxas takes
# them for sm_90 with an advisory naming sm_90a/sm_100a/sm_100f/sm_103a/
# sm_103f/sm_110a/sm_110f, so the forms need those targets (cap multicast).
TMA_LOAD_MC_1D  8.0 multicast fam=tma_load_mc rank=1  cp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster [$0:a32], [$1:r64/imm, {$2:r32/imm}], [$3:a32], $4:r16/imm;
TMA_LOAD_MC_2D  8.0 multicast fam=tma_load_mc rank=2  cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster [$0:a32], [$1:r64/imm, {$2:r32/imm, $3:r32/imm}], [$4:a32], $5:r16/imm;
TMA_LOAD_MC_3D  8.0 multicast fam=tma_load_mc rank=3  cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster [$0:a32], [$1:r64/imm, {$2:r32/imm, $3:r32/imm, $4:r32/imm}], [$5:a32], $6:r16/imm;
TMA_LOAD_MC_4D  8.0 multicast fam=tma_load_mc rank=4  cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster [$0:a32], [$1:r64/imm, {$2:r32/imm, $3:r32/imm, $4:r32/imm, $5:r32/imm}], [$6:a32], $7:r16/imm;
TMA_LOAD_MC_5D  8.0 multicast fam=tma_load_mc rank=5  cp.async.bulk.tensor.5d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster [$0:a32], [$1:r64/imm, {$2:r32/imm, $3:r32/imm, $4:r32/imm, $5:r32/imm, $6:r32/imm}], [$7:a32], $8:r16/imm;
MOV_B16         6.3 all   mov.b16 $0:r16, $1:r32/imm;
# Clusters: the CTA's rank in its cluster, and the cluster-wide barrier
# (every thread of every CTA of the cluster arrives, then waits; release /
# acquire order the shared-memory writes of the cluster, .aligned: every
# thread of the warp executes it). PTX 8.0 for .release/.acquire (ptxas 13.0).
MOV_CLUSTER_CTARANK 7.8 sm90 mov.u32 $0:r32, %cluster_ctarank;
CLUSTER_ARRIVE  8.0 sm90  barrier.cluster.arrive.release.aligned;
CLUSTER_WAIT    8.0 sm90  barrier.cluster.wait.acquire.aligned;
