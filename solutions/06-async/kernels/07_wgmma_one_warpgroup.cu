// Lab 06, rung 4 (solution): wgmma on one warpgroup. C[M,N] = A[M,K] Bt[N,K]^T, bf16 in,
// fp32 accumulate, bf16 out (op gemm_abt: both operands K-major).
//
// One block of one warpgroup (128 threads) per 64 x 256 tile of C; the grid covers C
// once (not persistent). 64-wide K slices of A (64 x 64) and Bt (256 x 64) come in by
// TMA, 128-byte swizzled, through a 4-stage ring with one "full" mbarrier per stage,
// as in part 1's row sums. Per slice the warpgroup waits for its stage, issues four
// wgmma m64n256k16 (128 fp32 accumulators a thread), commits them and waits for them
// (wait<0>); a __syncthreads then tells thread 0 that no warp reads the stage any more,
// and thread 0 refills it with the slice kStages further on.
//
// Why wait<0> and not wait<1> (one slice queued behind the running one, as part 3 does):
// the refill would then sit inside the wgmma pipeline, between the MMAs of slice k and
// the wait that ends them, and ptxas (CUDA 13.0) answers a TMA copy there by serializing
// every wgmma of the kernel (C7515 under -Xptxas -v: "wgmma.mma_async instructions are
// serialized"; checked with nvcc 13.0). So the
// tensor cores idle for a moment per slice: the barrier, the refill and the next slice's
// issue. Rung 5 moves the refill to a producer warpgroup and gets wait<1> back.
//
// Shared memory: 4 x (8 + 32) KiB = 160 KiB, so one block per SM; 128 threads with the
// 128 accumulators fit easily in registers. Per K slice: 40 KiB loaded for
// 2 x 64 x 256 x 64 = 2.1 MFLOP, 52 FLOP per byte (rung 5's 128 x 256 tile: 85). At
// cuBLAS's rate the 132 SMs would pull ~15 TB/s from L2 at 52 FLOP/B, more than it
// delivers (~9-10 TB/s, from what part 3 sustains at 85 FLOP/B), and every block fills
// its ring and stores its tile with the tensor cores idle. Expected: ~55-70% of cuBLAS.
#include "roofline/ptx/mbarrier.cuh"
#include "roofline/ptx/tma.cuh"
#include "roofline/contract/gemm.cuh"
#include "roofline/ptx/wgmma.cuh"

#include <cuda_bf16.h>

#include <algorithm>
#include <cstdint>

#include "given/wgmma_one_warpgroup.cuh"

namespace {

__global__ void __launch_bounds__(kThreads, 1) gemm_one_warpgroup(const __grid_constant__ CUtensorMap a_map,
                                                                  const __grid_constant__ CUtensorMap b_map,
                                                                  __nv_bfloat16* C, int N, int K) {
    extern __shared__ unsigned char shared_raw[];
    // Round the dynamic shared memory up to 1024 bytes (the launch asks for 1 KiB extra).
    auto base = (reinterpret_cast<std::uintptr_t>(shared_raw) + 1023) & ~std::uintptr_t(1023);
    auto& shared = *reinterpret_cast<SharedStorage*>(base);

    const int tile_n = blockIdx.x, tile_m = blockIdx.y;
    const int k_slices = K / kBlockK;
    auto issue = [&](int k) {
        const int stage = k % kStages;
        roofline::mbarrier::arrive_expect_tx(&shared.full[stage], kATileBytes + kBTileBytes);
        roofline::tma::load_2d(shared.a[stage], &a_map, tile_m * kBlockM, k * kBlockK, &shared.full[stage]);
        roofline::tma::load_2d(shared.b[stage], &b_map, tile_n * kBlockN, k * kBlockK, &shared.full[stage]);
    };

    if (threadIdx.x == 0) {
        roofline::tma::prefetch_map(&a_map);
        roofline::tma::prefetch_map(&b_map);
        for (int s = 0; s < kStages; ++s) roofline::mbarrier::init(&shared.full[s], 1);
        roofline::mbarrier::fence_init();
        for (int k = 0; k < kStages && k < k_slices; ++k) issue(k);
    }
    __syncthreads();

    float accumulator[128] = {};
    for (int k = 0; k < k_slices; ++k) {
        const int stage = k % kStages;
        roofline::mbarrier::wait(&shared.full[stage], (k / kStages) & 1);
        const std::uint64_t a_descriptor =
            roofline::wgmma::sw128_kmajor_descriptor(roofline::tma::smem_address(shared.a[stage]));
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
        roofline::wgmma::wait<0>();  // slice k's MMAs are done (no TMA copy may sit inside the wgmma pipeline)
        __syncthreads();             // ... in every warp: its stage may be refilled
        if (threadIdx.x == 0 && k + kStages < k_slices) issue(k + kStages);
    }
    store_tile(accumulator, C, N, tile_m, tile_n);
}

}  // namespace

// The launch (given).
#include "given/wgmma_one_warpgroup_launch.cuh"

ROOFLINE_GEMM_ABT_VARIANT(wgmma_one_warpgroup_4096, launch_gemm_one_warpgroup);
ROOFLINE_GEMM_ABT_VARIANT(wgmma_one_warpgroup_8192, launch_gemm_one_warpgroup);
