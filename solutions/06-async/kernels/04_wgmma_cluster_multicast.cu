// Lab 06, part 4 (solution): part 3's persistent wgmma GEMM, launched in clusters of two
// blocks that share the Bt slice through TMA multicast. C[M,N] = A[M,K] Bt[N,K]^T, bf16
// in, fp32 accumulate, bf16 out.
//
// The two blocks of a cluster compute vertically adjacent 128 x 256 tiles: the same 256
// columns of C, rows 256p + 128r .. +127 for cluster rank r. They need different slices of
// A and the same slice of Bt (256 x 64). Each block's producer loads its own A slice, and
// HALF of the Bt slice (rows 128r .. 128r + 127) with a multicast copy that lands in both
// blocks' shared memory at the same offset. So each Bt byte leaves L2 once per cluster
// instead of once per block: per K slice a block pulls 16 KiB of A + 16 KiB of Bt from L2
// instead of 16 + 32 KiB (a third less traffic into each SM).
//
// What multicast changes in the ring:
//   full[s]: still armed by this block's producer alone, for all 48 KiB the stage will
//     hold; 16 of them come from the other block's multicast, counted on this barrier.
//   empty[s]: the other block's producer writes into this block's stage s too, so it may
//     refill it only when BOTH blocks' consumers are done with it. Every consumer warp
//     arrives on empty[s] of both blocks (16 arrivals per phase), and each producer waits
//     on its own. The arrival's release is CTA-scoped (cluster::arrive_remote says why): a
//     cluster-scope one puts a GPU-wide MEMBAR before each arrival, twice per warp and K
//     slice, and in our first version held the rung at ~60% of part 3.
//   Start and end: a cluster-wide barrier after the mbarrier initialisation (nobody may
//     signal a barrier in the other block before it exists) and another before exit (the
//     other block's consumers may still arrive on this block's empty barriers).
// Both blocks of a cluster walk the same sequence of tile pairs, so their rings stay in step.
#include "roofline/ptx/cluster.cuh"
#include "roofline/ptx/mbarrier.cuh"
#include "roofline/ptx/tma.cuh"
#include "roofline/contract/gemm.cuh"
#include "roofline/ptx/wgmma.cuh"

#include <cuda_bf16.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "given/wgmma_cluster_multicast.cuh"

namespace {

__global__ void __launch_bounds__(kThreads, 1) gemm_wgmma_cluster(const __grid_constant__ CUtensorMap a_map,
                                                                  const __grid_constant__ CUtensorMap b_map,
                                                                  __nv_bfloat16* C, int M, int N, int K) {
    extern __shared__ unsigned char shared_raw[];
    auto base = (reinterpret_cast<std::uintptr_t>(shared_raw) + 1023) & ~std::uintptr_t(1023);
    auto& shared = *reinterpret_cast<SharedStorage*>(base);

    const int warpgroup = threadIdx.x / 128;
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

    if (warpgroup == 0) {
        roofline::wgmma::release_registers<40>();
        if (threadIdx.x == 0) {
            roofline::tma::prefetch_map(&a_map);
            roofline::tma::prefetch_map(&b_map);
            int stage = 0;
            std::uint32_t phase = 0;
            for (int pair = cluster; pair < pairs; pair += clusters) {
                int pair_m, tile_n;
                pair_position(pair, pairs_m, tiles_n, pair_m, tile_n);
                const int tile_m = pair_m * kClusterSize + rank;
                for (int k = 0; k < k_slices; ++k) {
                    roofline::mbarrier::wait(&shared.empty[stage], phase ^ 1);  // both blocks freed it
                    roofline::mbarrier::arrive_expect_tx(&shared.full[stage], kATileBytes + kBTileBytes);
                    roofline::tma::load_2d(shared.a[stage], &a_map, tile_m * kBlockM, k * kBlockK, &shared.full[stage]);
                    roofline::cluster::load_2d_multicast(shared.b[stage] + rank * kBRowsPerBlock * kBlockK, &b_map,
                                                         tile_n * kBlockN + rank * kBRowsPerBlock, k * kBlockK,
                                                         &shared.full[stage], (1u << kClusterSize) - 1);
                    if (++stage == kStages) stage = 0, phase ^= 1;
                }
            }
        }
    } else {
        roofline::wgmma::claim_registers<232>();
        const int consumer = warpgroup - 1;
        const int lane = threadIdx.x % 32;
        float accumulator[128] = {};
        int stage = 0;
        std::uint32_t phase = 0;
        // Frees a stage in both blocks of the cluster: one arrival per warp on each.
        auto release = [&](int s) {
            if (lane == 0)
                for (int r = 0; r < kClusterSize; ++r) roofline::cluster::arrive_remote(&shared.empty[s], r);
        };

        for (int pair = cluster; pair < pairs; pair += clusters) {
            int pair_m, tile_n;
            pair_position(pair, pairs_m, tiles_n, pair_m, tile_n);
            const int tile_m = pair_m * kClusterSize + rank;
            int previous_stage = -1;
            for (int k = 0; k < k_slices; ++k) {
                roofline::mbarrier::wait(&shared.full[stage], phase);
                const std::uint64_t a_descriptor = roofline::wgmma::sw128_kmajor_descriptor(
                    roofline::tma::smem_address(shared.a[stage] + consumer * 64 * kBlockK));
                const std::uint64_t b_descriptor =
                    roofline::wgmma::sw128_kmajor_descriptor(roofline::tma::smem_address(shared.b[stage]));
                roofline::wgmma::fence();
#pragma unroll
                for (int step = 0; step < kBlockK / 16; ++step)
                    roofline::wgmma::mma_m64n256k16_bf16(accumulator, a_descriptor + 2 * step, b_descriptor + 2 * step,
                                                         k > 0 || step > 0);
                roofline::wgmma::commit();
                roofline::wgmma::wait<1>();
                if (previous_stage >= 0) release(previous_stage);
                previous_stage = stage;
                if (++stage == kStages) stage = 0, phase ^= 1;
            }
            roofline::wgmma::wait<0>();
            release(previous_stage);
            store_tile(accumulator, C, N, tile_m, tile_n, consumer);
        }
    }
    roofline::cluster::sync();  // the other block may still arrive on our empty barriers until here
}

}  // namespace

// The launch (given).
#include "given/wgmma_cluster_multicast_launch.cuh"

ROOFLINE_GEMM_ABT_VARIANT(wgmma_cluster_4096, launch_gemm_wgmma_cluster);
ROOFLINE_GEMM_ABT_VARIANT(wgmma_cluster_8192, launch_gemm_wgmma_cluster);
