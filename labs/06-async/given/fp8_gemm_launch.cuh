// Given code for lab 06's FP8 rungs: the tensor maps and the launch of the kernel file's
// gemm_fp8, which the kernel file defines before it includes this.
#pragma once
#include "fp8_gemm.cuh"

#include <algorithm>

namespace {

// A row-major [rows][K] e4m3 array in 128 x 128 boxes, 128-byte swizzle (a box row is 128 bytes).
inline CUtensorMap make_fp8_map(const __nv_fp8_e4m3* base, int rows, int K) {
    return roofline::tma::make_2d(base, CU_TENSOR_MAP_DATA_TYPE_UINT8, 1, rows, K, kBlockM, kBlockK,
                                  CU_TENSOR_MAP_SWIZZLE_128B);
}

// K a multiple of 128 (lab.yaml: divisible_by); M and N any size. One block per SM at most
// (192 KiB of ring), persistent over the tiles.
void launch_gemm_fp8(const __nv_fp8_e4m3* A, const __nv_fp8_e4m3* Bt, const float* scale_a, const float* scale_b,
                     __nv_bfloat16* C, int M, int N, int K, cudaStream_t stream) {
    const CUtensorMap a_map = make_fp8_map(A, M, K);
    const CUtensorMap b_map = make_fp8_map(Bt, N, K);
    constexpr int shared_bytes = sizeof(SharedStorage) + 1024;
    static const bool configured = [] {
        cudaFuncSetAttribute(gemm_fp8, cudaFuncAttributeMaxDynamicSharedMemorySize, shared_bytes);
        return true;
    }();
    (void)configured;
    const int tiles = ((M + kBlockM - 1) / kBlockM) * ((N + kBlockN - 1) / kBlockN);
    const int blocks = std::min(tiles, roofline::tma::multiprocessor_count());
    gemm_fp8<<<blocks, kThreads, shared_bytes, stream>>>(a_map, b_map, scale_a, scale_b, C, M, N, K);
}

}  // namespace
