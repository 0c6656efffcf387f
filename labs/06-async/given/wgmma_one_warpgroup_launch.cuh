// Given code for lab 06's part 7 (kernels/07_wgmma_one_warpgroup.cu): the tensor maps and the launch of the
// kernel file's gemm_one_warpgroup, which the kernel file defines before it includes this.
#pragma once
#include "roofline/contract/gemm.cuh"
#include "roofline/ptx/mbarrier.cuh"
#include "roofline/ptx/tma.cuh"
#include "roofline/ptx/wgmma.cuh"

#include <cuda_bf16.h>
#include <algorithm>
#include <cstdint>

#include "wgmma_one_warpgroup.cuh"

namespace {

// M a multiple of 64, N of 256, K of 64 (lab.yaml: divisible_by).
void launch_gemm_one_warpgroup(const __nv_bfloat16* A, const __nv_bfloat16* Bt, __nv_bfloat16* C, int M, int N,
                               int K, cudaStream_t stream) {
    const CUtensorMap a_map = roofline::tma::make_2d_bf16(A, M, K, kBlockM, kBlockK, CU_TENSOR_MAP_SWIZZLE_128B);
    const CUtensorMap b_map = roofline::tma::make_2d_bf16(Bt, N, K, kBlockN, kBlockK, CU_TENSOR_MAP_SWIZZLE_128B);
    constexpr int shared_bytes = sizeof(SharedStorage) + 1024;
    static const bool configured = [] {
        cudaFuncSetAttribute(gemm_one_warpgroup, cudaFuncAttributeMaxDynamicSharedMemorySize, shared_bytes);
        return true;
    }();
    (void)configured;
    const dim3 grid(N / kBlockN, M / kBlockM);  // x along N: neighbouring blocks share their A panel
    gemm_one_warpgroup<<<grid, kThreads, shared_bytes, stream>>>(a_map, b_map, C, N, K);
}

}  // namespace
