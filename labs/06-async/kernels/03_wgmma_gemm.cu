// Lab 06, part 3: a Hopper GEMM. C[M,N] = A[M,K] Bt[N,K]^T, bf16 in, fp32 accumulate,
// bf16 out (op gemm_abt: both operands K-major, the layout wgmma reads directly).
//
// Given: the launch (a persistent grid of one 384-thread block per SM), the tensor maps
// (A in 128 x 64 boxes, Bt in 256 x 64 boxes, both 128-byte swizzled), the shared
// memory (a 4-stage ring of A and Bt slices with full/empty barriers), the tile order,
// and the store of the accumulators. Write the pipeline (lesson 06, section 7 and 10.5):
// rung 5's producer and consumers (kernels/08_wgmma_two_consumers.cu), with the blocks
// persistent: each block walks the tiles it owns (every gridDim.x-th, from its own index)
// through ONE ring. What that changes, and why:
//   - the ring's stages and phases run on across tiles: the producer's stage and parity, and
//     each consumer's, continue from one tile to the next instead of restarting, so that the
//     producer loads the next tile's first slices while the consumers finish this one (the
//     point of the persistent grid);
//   - a consumer's accumulators start again at each tile (the first wgmma of a tile does not
//     accumulate), and the last stage of a tile must be freed too, since the next tile's
//     slices will come through it;
//   - the barriers' arrival counts and the slices' coordinates as in rung 5.
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
