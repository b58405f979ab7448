# tensor memory lifecycle and waits (sm_100a class, PTX 8.6)
TC_ALLOC          8.6 tcgen05 tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [$0], $1;
TC_RELINQUISH     8.6 tcgen05 tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;
TC_DEALLOC        8.6 tcgen05 tcgen05.dealloc.cta_group::1.sync.aligned.b32 $0, $1;
TC_FENCE_BEFORE   8.6 tcgen05 tcgen05.fence::before_thread_sync;
TC_FENCE_AFTER    8.6 tcgen05 tcgen05.fence::after_thread_sync;
TC_WAIT_LD        8.6 tcgen05 tcgen05.wait::ld.sync.aligned;
TC_WAIT_ST        8.6 tcgen05 tcgen05.wait::st.sync.aligned;
