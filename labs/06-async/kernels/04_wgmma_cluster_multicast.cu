// Lab 06, part 4: part 3's persistent wgmma GEMM in clusters of two blocks that share the
// Bt slice through TMA multicast. C[M,N] = A[M,K] Bt[N,K]^T, bf16 in, fp32 accumulate.
//
// The two blocks of a cluster (ranks 0 and 1) compute vertically adjacent 128 x 256 tiles:
// tile rows 2p and 2p + 1 of the same 256 columns. They need different A slices and the
// same Bt slice, so each block loads HALF the Bt slice (rows 128 * rank .. +127 of it) with
// a multicast copy that lands in both blocks' shared memory; each Bt byte leaves L2 once per
// cluster instead of once per block.
//
// Given: the cluster launch (cudaLaunchKernelEx with a cluster dimension of 2), the tensor
// maps (Bt now in 128 x 64 boxes: half a slice), the shared memory, the pair order, the
// store, the barrier initialisation (empty[s] expects 16 arrivals: 8 consumer warps in
// EACH block) and the two cluster barriers. Write, from your part 3 (lesson 06, sections 8
// and 10.6); what changes, and why:
//   producer (warpgroup 0): walks the pairs this cluster owns (as part 3 walks tiles, by
//     cluster), its block's tile being its rank's row of the pair. Per K slice it loads its
//     own A slice and HALF the Bt slice, multicast (cluster::load_2d_multicast) to the same
//     place in both blocks' stage; its half is the rank's half, and lands where that half
//     of the slice belongs. The full barrier must still announce the WHOLE stage's bytes: the
//     other half arrives on it from the other block's multicast.
//   consumers (warpgroups 1, 2): as in part 3, except that a stage is now written by both
//     producers, so freeing it means arriving on the empty barrier of BOTH blocks
//     (cluster::arrive_remote, ranks 0 and 1): neither producer may refill until both
//     blocks' consumers are done with it. Keep fences out of this loop
//     (cluster::arrive_remote's comment says what a cluster-scope one costs).
// Do not return early from any warpgroup: every thread must reach the final cluster::sync().
// Predict first: how many bytes does one SM pull from L2 per K slice here, and in part 3?
#include "roofline/ptx/cluster.cuh"
#include "roofline/ptx/mbarrier.cuh"
#include "roofline/ptx/tma.cuh"
#include "roofline/contract/gemm.cuh"
#include "roofline/ptx/wgmma.cuh"

#include <cuda_bf16.h>

#include <algorithm>
#include <cstdint>

#include "given/wgmma_cluster_multicast.cuh"

namespace {

__global__ void __launch_bounds__(kThreads, 1) gemm_wgmma_cluster(const __grid_constant__ CUtensorMap a_map,
                                                                  const __grid_constant__ CUtensorMap b_map,
                                                                  __nv_bfloat16* C, int M, int N, int K) {
    extern __shared__ unsigned char shared_raw[];
    auto base = (reinterpret_cast<std::uintptr_t>(shared_raw) + 1023) & ~std::uintptr_t(1023);
    auto& shared = *reinterpret_cast<SharedStorage*>(base);

    const int rank = int(roofline::cluster::block_rank());
    const int pairs_m = M / (kBlockM * kClusterSize), tiles_n = N / kBlockN, pairs = pairs_m * tiles_n;
    const int k_slices = K / kBlockK;
    const int cluster = int(roofline::cluster::cluster_index()), clusters = int(roofline::cluster::cluster_count());

    if (threadIdx.x == 0) {
        for (int s = 0; s < kStages; ++s) {
            roofline::mbarrier::init(&shared.full[s], 1);
            roofline::mbarrier::init(&shared.empty[s], kConsumers * 4 * kClusterSize);
        }
        roofline::mbarrier::fence_init();
    }
    roofline::cluster::sync();  // both blocks' barriers exist before either block's copies signal them

    // TODO: which warpgroup this thread is in (as in part 3), then the producer warpgroup and
    // the two consumer warpgroups (see the top of the file).
    (void)rank, (void)pairs, (void)k_slices, (void)cluster, (void)clusters;

    roofline::cluster::sync();  // the other block may still arrive on our empty barriers until here
}

}  // namespace

// The launch (given).
#include "given/wgmma_cluster_multicast_launch.cuh"

ROOFLINE_GEMM_ABT_VARIANT(wgmma_cluster_4096, launch_gemm_wgmma_cluster);
ROOFLINE_GEMM_ABT_VARIANT(wgmma_cluster_8192, launch_gemm_wgmma_cluster);
