// Given code for lab 06's bridge rung (kernels/10_mma_sync_tma.cu): the tensor maps and the
// launch of the kernel file's gemm_mma_sync_tma, which the kernel file defines before it
// includes this.
#pragma once
#include "roofline/contract/gemm.cuh"
#include "roofline/ptx/tma.cuh"

#include <cuda_bf16.h>
#include <cstdint>

#include "mma_sync_tma.cuh"

namespace {

// M a multiple of 128, N of 256, K of 64 (lab.yaml: divisible_by). One block per C tile.
void launch_gemm_mma_sync_tma(const __nv_bfloat16* A, const __nv_bfloat16* Bt, __nv_bfloat16* C, int M, int N, int K,
                              cudaStream_t stream) {
    // A in [128][64] boxes, Bt in [256][64] boxes (256 rows: the most a box side may have), both
    // with the 128-byte swizzle: one box of each fills a stage.
    const CUtensorMap a_map = roofline::tma::make_2d_bf16(A, M, K, kBlockM, kBlockK, CU_TENSOR_MAP_SWIZZLE_128B);
    const CUtensorMap b_map = roofline::tma::make_2d_bf16(Bt, N, K, kBlockN, kBlockK, CU_TENSOR_MAP_SWIZZLE_128B);
    constexpr int shared_bytes = sizeof(SharedStorage) + 1024;
    static const bool configured = [] {
        cudaFuncSetAttribute(gemm_mma_sync_tma, cudaFuncAttributeMaxDynamicSharedMemorySize, shared_bytes);
        return true;
    }();
    (void)configured;
    const int tiles = (M / kBlockM) * (N / kBlockN);
    gemm_mma_sync_tma<<<tiles, kThreads, shared_bytes, stream>>>(a_map, b_map, C, M, N, K);
}

}  // namespace
