// Lab 06, rung 4: wgmma on one warpgroup. C[M,N] = A[M,K] Bt[N,K]^T, bf16 in, fp32
// accumulate, bf16 out (op gemm_abt: both operands K-major, the layout wgmma reads directly).
// What is new against the row sums: the tensor cores, fed from shared memory by wgmma.
// Still no producer warp: the same warpgroup loads and multiplies.
//
// Given: the launch (one 128-thread block, one warpgroup, per 64 x 256 tile of C; not
// persistent), the tensor maps (A in 64 x 64 boxes, Bt in 256 x 64 boxes, both 128-byte
// swizzled), the shared memory (a 4-stage ring of A and Bt slices, one "full" barrier
// per stage) and the store of the accumulators. Write the kernel (lesson 06, sections 6 and
// 10.4); what it must do, and why:
//   - the ring of part 1 with K slices instead of row tiles: a stage holds one 64 x 64 slice
//     of A and one 256 x 64 slice of Bt, both announced on its full barrier (their bytes
//     together), the first kStages slices started before the loop (fewer if K has fewer);
//   - per K slice, the 64 x 256 x 64 product into the same accumulators: wgmma's K is 16, so
//     a slice is a chain of wgmmas, the first of the tile not accumulating (the registers
//     hold garbage). Each reads its operands through shared-memory descriptors
//     (wgmma::sw128_kmajor_descriptor): the slice's base, and for each step along K the same
//     descriptor moved by 16 elements (the descriptor's address field counts 16-byte units);
//     wgmma::fence() before the chain (the accumulators were last written by ordinary code
//     or by another chain), commit() after it;
//   - a stage is refilled only when the wgmmas that read it are finished (wgmma reads shared
//     memory asynchronously, after it is issued) and every warp has passed that point. Here,
//     wait for all of them (wait<0>): a TMA copy issued while a wgmma group is still running
//     makes ptxas serialize every wgmma of the kernel (C7515, shown with nvcc -Xptxas -v);
//     rung 5 gives the copies to a producer to get around it;
//   - then store_tile().
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
    // TODO: the kernel the head of this file describes.
}

}  // namespace

// The launch (given).
#include "given/wgmma_one_warpgroup_launch.cuh"

ROOFLINE_GEMM_ABT_VARIANT(wgmma_one_warpgroup_4096, launch_gemm_one_warpgroup);
ROOFLINE_GEMM_ABT_VARIANT(wgmma_one_warpgroup_8192, launch_gemm_one_warpgroup);
