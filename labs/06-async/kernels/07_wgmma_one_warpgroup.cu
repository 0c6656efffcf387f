// Lab 06, rung 4: wgmma on one warpgroup. C[M,N] = A[M,K] Bt[N,K]^T, bf16 in, fp32
// accumulate, bf16 out (op gemm_abt: both operands K-major, the layout wgmma reads directly).
// What is new against the row sums: the tensor cores, fed from shared memory by wgmma.
// Still no producer warp: the same warpgroup loads and multiplies.
//
// Given: the launch (one 128-thread block, one warpgroup, per 64 x 256 tile of C; not
// persistent), the tensor maps (A in 64 x 64 boxes, Bt in 256 x 64 boxes, both 128-byte
// swizzled), the shared memory (a 4-stage ring of A and Bt slices, one "full" barrier
// per stage) and the store of the accumulators. Write the kernel:
//   1. thread 0: init each full barrier for 1 arrival, fence_init(), then start the
//      first kStages K slices (fewer if K has fewer): for slice k into stage k % kStages,
//      arrive_expect_tx(full[stage], both tiles' bytes), load_2d the A slice (row
//      tile_m * 64, column k * 64) and the Bt slice (row tile_n * 256, column k * 64);
//      everyone: __syncthreads();
//   2. for each K slice k: wait on full[k % kStages] (which parity?); descriptors with
//      wgmma::sw128_kmajor_descriptor for the A and the Bt stage; wgmma::fence(); four
//      mma_m64n256k16_bf16, stepping 2 (32 bytes) along K in each descriptor, the very
//      first with accumulate = false; commit(); wait<0>() (slice k's MMAs are done);
//      __syncthreads() (so in every warp); then thread 0 refills slice k's stage with
//      slice k + kStages, if there is one. Not wait<1>: a TMA copy issued while a wgmma
//      group is still running makes ptxas serialize every wgmma of the kernel (C7515,
//      shown with nvcc -Xptxas -v); rung 5 gives the copies to a producer to get around it;
//   3. store_tile().
// Predict first: per K slice, how many bytes does a block pull from L2 for how many
// FLOPs, and what rate does that allow if L2 delivers about what part 3 needs?
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
    auto base = (reinterpret_cast<std::uintptr_t>(shared_raw) + 1023) & ~std::uintptr_t(1023);
    auto& shared = *reinterpret_cast<SharedStorage*>(base);
    const int tile_n = blockIdx.x, tile_m = blockIdx.y;
    const int k_slices = K / kBlockK;
    // TODO: steps 1-3 above.
}

}  // namespace

// The launch (given).
#include "given/wgmma_one_warpgroup_launch.cuh"

ROOFLINE_GEMM_ABT_VARIANT(wgmma_one_warpgroup_4096, launch_gemm_one_warpgroup);
ROOFLINE_GEMM_ABT_VARIANT(wgmma_one_warpgroup_8192, launch_gemm_one_warpgroup);
