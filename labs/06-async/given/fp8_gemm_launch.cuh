// Given code for lab 06's FP8 rungs: the tensor maps and the launch of the kernel file's
// gemm_fp8, which the kernel file defines before it includes this.
#pragma once
#include "fp8_gemm.cuh"

#include <algorithm>

namespace {

// A row-major [rows][K] e4m3 array in boxes of box_rows x 128, 128-byte swizzle (a box row is 128 bytes).
inline CUtensorMap make_fp8_map(const __nv_fp8_e4m3* base, int rows, int K, int box_rows) {
    return roofline::tma::make_2d(base, CU_TENSOR_MAP_DATA_TYPE_UINT8, 1, rows, K, box_rows, kBlockK,
                                  CU_TENSOR_MAP_SWIZZLE_128B);
}

// K a multiple of 128 (lab.yaml: divisible_by); M and N any size. One block per SM at most
// (192 KiB of ring), persistent over the tiles, in clusters of kCluster blocks.
void launch_gemm_fp8(const __nv_fp8_e4m3* A, const __nv_fp8_e4m3* Bt, const float* scale_a, const float* scale_b,
                     __nv_bfloat16* C, int M, int N, int K, cudaStream_t stream) {
    const CUtensorMap a_map = make_fp8_map(A, M, K, kARowsPerBlock);
    const CUtensorMap b_map = make_fp8_map(Bt, N, K, kBlockN);
    constexpr int shared_bytes = sizeof(SharedStorage) + 1024;

    cudaLaunchConfig_t config{};
    cudaLaunchAttribute attribute[1];
    attribute[0].id = cudaLaunchAttributeClusterDimension;
    attribute[0].val.clusterDim.x = kCluster;
    attribute[0].val.clusterDim.y = 1;
    attribute[0].val.clusterDim.z = 1;
    config.attrs = attribute;
    config.numAttrs = 1;
    config.blockDim = dim3(kThreads);
    config.dynamicSmemBytes = shared_bytes;
    config.stream = stream;

    // How many clusters fit at once: a cluster's blocks share one GPC, so this can be fewer
    // than the SM count / kCluster. Asked once; the grid is that many clusters, or fewer.
    static const int resident_clusters = [&] {
        cudaFuncSetAttribute(gemm_fp8, cudaFuncAttributeMaxDynamicSharedMemorySize, shared_bytes);
        cudaLaunchConfig_t probe = config;
        probe.gridDim = dim3(roofline::tma::multiprocessor_count() / kCluster * kCluster);
        int count = 0;
        if (cudaOccupancyMaxActiveClusters(&count, gemm_fp8, &probe) != cudaSuccess || count < 1) {
            (void)cudaGetLastError();  // the query's error is not the kernel's: the launch below reports its own
            count = roofline::tma::multiprocessor_count() / kCluster;
        }
        return count;
    }();
    const int tiles_m = (M + kBlockM - 1) / kBlockM, tiles_n = (N + kBlockN - 1) / kBlockN;
    const int units = tiles_m * ((tiles_n + kCluster - 1) / kCluster);
    config.gridDim = dim3(std::min(units, resident_clusters) * kCluster);
    cudaLaunchKernelEx(&config, gemm_fp8, a_map, b_map, scale_a, scale_b, C, M, N, K);
}

}  // namespace
