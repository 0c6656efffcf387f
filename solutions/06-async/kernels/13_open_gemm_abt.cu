// The open rung's reference design: rung 8's (wgmma_tma_store: a persistent grid,
// TMA loads multicast across a cluster of two, a producer warp and two consumer warpgroups, C drained
// by a TMA store from swizzled shared memory while the next tile runs);
// the kernel is in ../wgmma_tma_store.cuh.
// The debrief (labs/06-async/debrief/) compares it with the other designs the lesson offers.
#include "../wgmma_tma_store.cuh"

ROOFLINE_GEMM_ABT_VARIANT(open_gemm_abt, launch_gemm_wgmma_tma_store);
