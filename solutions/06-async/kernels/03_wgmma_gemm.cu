// Lab 06, part 3 (solution): a Hopper GEMM. C[M,N] = A[M,K] Bt[N,K]^T, bf16 in, fp32
// accumulate, bf16 out (op gemm_abt: both operands K-major).
//
// One block per SM (a persistent grid) walks 128 x 256 tiles of C. Three warpgroups:
//   producer (warpgroup 0): gives back registers (setmaxnreg), and one thread streams
//     64-wide K slices of A (128 x 64) and Bt (256 x 64) into a 4-stage ring with TMA,
//     128-byte swizzled, each stage's bytes counted on its "full" mbarrier;
//   consumers (warpgroups 1, 2): take registers, and each multiplies its 64 rows of A
//     by all 256 columns with wgmma m64n256k16 (four per K slice), 128 fp32
//     accumulators a thread. After issuing slice k it waits until slice k-1's wgmmas
//     are done and frees that stage on its "empty" mbarrier (one arrival per warp),
//     so one slice of MMAs is always queued behind the running one.
// The producer runs ahead into the next tile while the consumers store this one.
//
// Shared memory: 4 stages x (16 + 32) KiB = 192 KiB. Per SM and K slice: 48 KiB loaded
// for 2 x 128 x 256 x 64 = 4.2 MFLOP, i.e. 85 FLOP per byte of shared memory filled.
// Expected at 4096^3 and 8192^3: ~85-95% of cuBLAS (no clusters, no TMA multicast and
// no shared-memory staging of the stores, which cuBLAS's Hopper kernels have).
#include "roofline/ptx/mbarrier.cuh"
#include "roofline/ptx/tma.cuh"
#include "roofline/contract/gemm.cuh"
#include "roofline/ptx/wgmma.cuh"

#include <cuda_bf16.h>

#include <algorithm>
#include <cstdint>

#include "given/wgmma_gemm.cuh"

namespace {

__global__ void __launch_bounds__(kThreads, 1) gemm_wgmma(const __grid_constant__ CUtensorMap a_map,
                                                          const __grid_constant__ CUtensorMap b_map,
                                                          __nv_bfloat16* C, int M, int N, int K) {
    extern __shared__ unsigned char shared_raw[];
    // Round the dynamic shared memory up to 1024 bytes (the launch asks for 1 KiB extra).
    auto base = (reinterpret_cast<std::uintptr_t>(shared_raw) + 1023) & ~std::uintptr_t(1023);
    auto& shared = *reinterpret_cast<SharedStorage*>(base);

    const int warpgroup = threadIdx.x / 128;
    const int tiles_m = M / kBlockM, tiles_n = N / kBlockN, tiles = tiles_m * tiles_n;
    const int k_slices = K / kBlockK;

    if (threadIdx.x == 0) {
        for (int s = 0; s < kStages; ++s) {
            roofline::mbarrier::init(&shared.full[s], 1);
            roofline::mbarrier::init(&shared.empty[s], kConsumers * 4);
        }
        roofline::mbarrier::fence_init();
    }
    __syncthreads();

    if (warpgroup == 0) {
        roofline::wgmma::release_registers<40>();
        if (threadIdx.x == 0) {
            roofline::tma::prefetch_map(&a_map);
            roofline::tma::prefetch_map(&b_map);
            int stage = 0;
            std::uint32_t phase = 0;
            for (int tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
                int tile_m, tile_n;
                tile_position(tile, tiles_m, tiles_n, tile_m, tile_n);
                for (int k = 0; k < k_slices; ++k) {
                    roofline::mbarrier::wait(&shared.empty[stage], phase ^ 1);
                    roofline::mbarrier::arrive_expect_tx(&shared.full[stage], kATileBytes + kBTileBytes);
                    roofline::tma::load_2d(shared.a[stage], &a_map, tile_m * kBlockM, k * kBlockK, &shared.full[stage]);
                    roofline::tma::load_2d(shared.b[stage], &b_map, tile_n * kBlockN, k * kBlockK, &shared.full[stage]);
                    if (++stage == kStages) stage = 0, phase ^= 1;
                }
            }
        }
        return;
    }

    roofline::wgmma::claim_registers<232>();
    const int consumer = warpgroup - 1;
    const int lane = threadIdx.x % 32;
    float accumulator[128] = {};
    int stage = 0;
    std::uint32_t phase = 0;

    for (int tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        int tile_m, tile_n;
        tile_position(tile, tiles_m, tiles_n, tile_m, tile_n);
        int previous_stage = -1;
        for (int k = 0; k < k_slices; ++k) {
            roofline::mbarrier::wait(&shared.full[stage], phase);
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
            if (previous_stage >= 0 && lane == 0) roofline::mbarrier::arrive(&shared.empty[previous_stage]);
            previous_stage = stage;
            if (++stage == kStages) stage = 0, phase ^= 1;
        }
        roofline::wgmma::wait<0>();
        if (lane == 0) roofline::mbarrier::arrive(&shared.empty[previous_stage]);

        store_tile(accumulator, C, N, tile_m, tile_n, consumer);
    }
}

}  // namespace

// The launch (given).
#include "given/wgmma_gemm_launch.cuh"

ROOFLINE_GEMM_ABT_VARIANT(wgmma_gemm_4096, launch_gemm_wgmma);
ROOFLINE_GEMM_ABT_VARIANT(wgmma_gemm_8192, launch_gemm_wgmma);
