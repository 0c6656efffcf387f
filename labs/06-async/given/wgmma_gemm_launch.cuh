// Given code for lab 06's part 3 (kernels/03_wgmma_gemm.cu): the tensor maps and the launch of the
// kernel file's gemm_wgmma, which the kernel file defines before it includes this.
#pragma once
#include "roofline/contract/gemm.cuh"
#include "roofline/ptx/mbarrier.cuh"
#include "roofline/ptx/tma.cuh"
#include "roofline/ptx/wgmma.cuh"

#include <cuda_bf16.h>
#include <algorithm>
#include <cstdint>

#include "wgmma_gemm.cuh"

namespace {

// M a multiple of 128, N of 256, K of 64 (lab.yaml: divisible_by).
void launch_gemm_wgmma(const __nv_bfloat16* A, const __nv_bfloat16* Bt, __nv_bfloat16* C, int M, int N, int K,
                       cudaStream_t stream) {
    const CUtensorMap a_map = roofline::tma::make_2d_bf16(A, M, K, kBlockM, kBlockK, CU_TENSOR_MAP_SWIZZLE_128B);
    const CUtensorMap b_map = roofline::tma::make_2d_bf16(Bt, N, K, kBlockN, kBlockK, CU_TENSOR_MAP_SWIZZLE_128B);
    constexpr int shared_bytes = sizeof(SharedStorage) + 1024;
    static const bool configured = [] {
        cudaFuncSetAttribute(gemm_wgmma, cudaFuncAttributeMaxDynamicSharedMemorySize, shared_bytes);
        return true;
    }();
    (void)configured;
    const int tiles = (M / kBlockM) * (N / kBlockN);
    const int blocks = std::min(tiles, roofline::tma::multiprocessor_count());
    gemm_wgmma<<<blocks, kThreads, shared_bytes, stream>>>(a_map, b_map, C, M, N, K);
}

}  // namespace
