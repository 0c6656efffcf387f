// Lab 06, rung 5 (solution): a producer and two consumer warpgroups on one 128 x 256 tile
// per block. C[M,N] = A[M,K] Bt[N,K]^T, bf16 in, fp32 accumulate, bf16 out (gemm_abt).
//
// Against rung 4: the tile doubles to 128 rows, shared by two consumer warpgroups (64
// rows each, both reading the same Bt slice), and the loads move to a producer of their
// own. Three warpgroups per block:
//   producer (warpgroup 0): gives back registers (setmaxnreg; it is a whole warpgroup
//     because setmaxnreg acts per warpgroup), and one thread streams 64-wide K slices of
//     A (128 x 64) and Bt (256 x 64) into a 4-stage ring with TMA, waiting on each
//     stage's "empty" barrier before refilling it, arming its "full" one;
//   consumers (warpgroups 1, 2): take registers; per K slice, wait for the stage, four
//     wgmma m64n256k16, commit, wait<1>, and free the PREVIOUS slice's stage (one
//     arrival per warp on its empty barrier): no block barrier in the loop.
// One block per tile, in raster order (blockIdx.x along N); not persistent. Part 3 then
// makes the grid persistent, orders the tiles in groups for L2 and lets the producer
// run ahead into the next tile while the consumers store this one.
//
// Per K slice: 48 KiB for 4.2 MFLOP, 85 FLOP per byte (rung 4: 52): at cuBLAS's rate
// ~9 TB/s from L2, what part 3 sustains. Each block still starts with an empty ring (the
// first slice's latency) and ends with its store, with the tensor cores idle for both:
// about 1-2 us against a tile of 45 us (4096^3) or 90 us (8192^3).
// Expected: ~85-92% of cuBLAS at 4096^3, ~88-95% at 8192^3.
#include "roofline/ptx/mbarrier.cuh"
#include "roofline/ptx/tma.cuh"
#include "roofline/contract/gemm.cuh"
#include "roofline/ptx/wgmma.cuh"

#include <cuda_bf16.h>

#include <algorithm>
#include <cstdint>

#include "given/wgmma_two_consumers.cuh"

namespace {

__global__ void __launch_bounds__(kThreads, 1) gemm_two_consumers(const __grid_constant__ CUtensorMap a_map,
                                                                  const __grid_constant__ CUtensorMap b_map,
                                                                  __nv_bfloat16* C, int N, int K) {
    extern __shared__ unsigned char shared_raw[];
    // Round the dynamic shared memory up to 1024 bytes (the launch asks for 1 KiB extra).
    auto base = (reinterpret_cast<std::uintptr_t>(shared_raw) + 1023) & ~std::uintptr_t(1023);
    auto& shared = *reinterpret_cast<SharedStorage*>(base);

    const int warpgroup = threadIdx.x / 128;
    const int tile_n = blockIdx.x, tile_m = blockIdx.y;
    const int k_slices = K / kBlockK;

    if (threadIdx.x == 0) {
        for (int s = 0; s < kStages; ++s) {
            roofline::mbarrier::init(&shared.full[s], 1);
            roofline::mbarrier::init(&shared.empty[s], kConsumers * 4);  // one arrival per consumer warp
        }
        roofline::mbarrier::fence_init();
    }
    __syncthreads();

    if (warpgroup == 0) {
        roofline::wgmma::release_registers<40>();
        if (threadIdx.x == 0) {
            roofline::tma::prefetch_map(&a_map);
            roofline::tma::prefetch_map(&b_map);
            for (int k = 0; k < k_slices; ++k) {
                const int stage = k % kStages;
                // The stage's (k / kStages)-th refill waits for its (k / kStages)-th freeing; on the
                // first pass, parity 1 of a fresh barrier returns at once.
                roofline::mbarrier::wait(&shared.empty[stage], ((k / kStages) & 1) ^ 1);
                roofline::mbarrier::arrive_expect_tx(&shared.full[stage], kATileBytes + kBTileBytes);
                roofline::tma::load_2d(shared.a[stage], &a_map, tile_m * kBlockM, k * kBlockK, &shared.full[stage]);
                roofline::tma::load_2d(shared.b[stage], &b_map, tile_n * kBlockN, k * kBlockK, &shared.full[stage]);
            }
        }
        return;
    }

    roofline::wgmma::claim_registers<232>();
    const int consumer = warpgroup - 1;
    const int lane = threadIdx.x % 32;
    float accumulator[128] = {};
    for (int k = 0; k < k_slices; ++k) {
        const int stage = k % kStages;
        roofline::mbarrier::wait(&shared.full[stage], (k / kStages) & 1);
        const std::uint64_t a_descriptor = roofline::wgmma::sw128_kmajor_descriptor(
            roofline::tma::smem_address(shared.a[stage] + consumer * 64 * kBlockK));
        const std::uint64_t b_descriptor =
            roofline::wgmma::sw128_kmajor_descriptor(roofline::tma::smem_address(shared.b[stage]));
        roofline::wgmma::fence();
#pragma unroll
        for (int step = 0; step < kBlockK / 16; ++step) {
            // 16 bf16 = 32 bytes further along K: 2 in the descriptor's 16-byte address units.
            roofline::wgmma::mma_m64n256k16_bf16(accumulator, a_descriptor + 2 * step, b_descriptor + 2 * step,
                                                 k > 0 || step > 0);
        }
        roofline::wgmma::commit();
        roofline::wgmma::wait<1>();  // slice k-1's MMAs are done: its stage may be refilled
        if (k > 0 && lane == 0) roofline::mbarrier::arrive(&shared.empty[(k - 1) % kStages]);
    }
    roofline::wgmma::wait<0>();
    // No arrival for the last slice: nobody refills after it in this block.
    store_tile(accumulator, C, N, tile_m, tile_n, consumer);
}

}  // namespace

// The launch (given).
#include "given/wgmma_two_consumers_launch.cuh"

ROOFLINE_GEMM_ABT_VARIANT(wgmma_two_consumers_4096, launch_gemm_two_consumers);
ROOFLINE_GEMM_ABT_VARIANT(wgmma_two_consumers_8192, launch_gemm_two_consumers);
