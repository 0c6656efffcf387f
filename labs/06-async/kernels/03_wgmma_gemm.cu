// Lab 06, part 3: a Hopper GEMM. C[M,N] = A[M,K] Bt[N,K]^T, bf16 in, fp32 accumulate,
// bf16 out (op gemm_abt: both operands K-major, the layout wgmma reads directly).
//
// Given: the launch (a persistent grid of one 384-thread block per SM), the tensor maps
// (A in 128 x 64 boxes, Bt in 256 x 64 boxes, both 128-byte swizzled), the shared
// memory (a 4-stage ring of A and Bt slices with full/empty barriers), the tile order,
// and the store of the accumulators. Write the pipeline:
//   producer, warpgroup 0: wgmma::release_registers<40>(); then thread 0 alone, for each
//     tile this block owns (tile = blockIdx.x; tile += gridDim.x) and each K slice k:
//     wait on empty[stage] (parity phase ^ 1), arrive_expect_tx(full[stage], both tiles'
//     bytes), load_2d the A slice (row tile_m * 128, column k * 64) and the Bt slice
//     (row tile_n * 256, column k * 64); advance stage, flipping phase when it wraps.
//   consumers, warpgroups 1 and 2: wgmma::claim_registers<232>(); consumer c computes
//     rows 64c..64c+63 of the tile. For each K slice: wait on full[stage] (parity phase);
//     descriptors with wgmma::sw128_kmajor_descriptor for its A rows (64 rows further =
//     64 * 64 elements) and for the whole Bt slice; wgmma::fence(); four
//     mma_m64n256k16_bf16, stepping 2 (32 bytes) along K in each descriptor, the very
//     first of the tile with accumulate = false; commit(); wait<1>(); then lane 0 of
//     each warp arrives on the PREVIOUS slice's empty barrier. After the last slice:
//     wait<0>(), free that stage too, and store_tile().
// Predict first: at 4096^3, what fraction of the H200's bf16 peak can 132 blocks reach
// if each SM's tensor cores never wait?
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
    auto base = (reinterpret_cast<std::uintptr_t>(shared_raw) + 1023) & ~std::uintptr_t(1023);
    auto& shared = *reinterpret_cast<SharedStorage*>(base);
    const int tiles_m = M / kBlockM, tiles_n = N / kBlockN, tiles = tiles_m * tiles_n;
    const int k_slices = K / kBlockK;

    if (threadIdx.x == 0) {
        for (int s = 0; s < kStages; ++s) {
            roofline::mbarrier::init(&shared.full[s], 1);
            roofline::mbarrier::init(&shared.empty[s], kConsumers * 4);  // one arrival per consumer warp
        }
        roofline::mbarrier::fence_init();
    }
    __syncthreads();
    // TODO: the producer warpgroup and the two consumer warpgroups (see the top of the file).
}

}  // namespace

// The launch (given).
#include "given/wgmma_gemm_launch.cuh"

ROOFLINE_GEMM_ABT_VARIANT(wgmma_gemm_4096, launch_gemm_wgmma);
ROOFLINE_GEMM_ABT_VARIANT(wgmma_gemm_8192, launch_gemm_wgmma);
