// Given code for lab 06's part 4 (kernels/04_wgmma_cluster_multicast.cu): the tensor maps and the launch of the
// kernel file's gemm_wgmma_cluster, which the kernel file defines before it includes this.
// ROOFLINE_LAB04_DIAG=1 in the environment prints what the occupancy query told the launch
// (the clusters that fit, the registers and shared memory a block takes), for a profiling run.
#pragma once
#include "roofline/ptx/cluster.cuh"
#include "roofline/contract/gemm.cuh"
#include "roofline/ptx/mbarrier.cuh"
#include "roofline/ptx/tma.cuh"
#include "roofline/ptx/wgmma.cuh"

#include <cuda_bf16.h>
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "wgmma_cluster_multicast.cuh"

namespace {

// M a multiple of 256 (a pair of tiles), N of 256, K of 64 (lab.yaml: divisible_by).
void launch_gemm_wgmma_cluster(const __nv_bfloat16* A, const __nv_bfloat16* Bt, __nv_bfloat16* C, int M, int N,
                               int K, cudaStream_t stream) {
    const CUtensorMap a_map = roofline::tma::make_2d_bf16(A, M, K, kBlockM, kBlockK, CU_TENSOR_MAP_SWIZZLE_128B);
    const CUtensorMap b_map =
        roofline::tma::make_2d_bf16(Bt, N, K, kBRowsPerBlock, kBlockK, CU_TENSOR_MAP_SWIZZLE_128B);
    constexpr int shared_bytes = sizeof(SharedStorage) + 1024;

    cudaLaunchConfig_t config{};
    cudaLaunchAttribute attribute[1];
    attribute[0].id = cudaLaunchAttributeClusterDimension;
    attribute[0].val.clusterDim.x = kClusterSize;
    attribute[0].val.clusterDim.y = 1;
    attribute[0].val.clusterDim.z = 1;
    config.attrs = attribute;
    config.numAttrs = 1;
    config.blockDim = dim3(kThreads);
    config.dynamicSmemBytes = shared_bytes;
    config.stream = stream;

    // How many clusters of two fit at once: a cluster's blocks share one GPC, so this can be
    // fewer than half the SM count. Asked once; the grid is that many clusters, or fewer.
    static const int resident_clusters = [&] {
        cudaFuncSetAttribute(gemm_wgmma_cluster, cudaFuncAttributeMaxDynamicSharedMemorySize, shared_bytes);
        cudaLaunchConfig_t probe = config;
        probe.gridDim = dim3(roofline::tma::multiprocessor_count() / kClusterSize * kClusterSize);
        int count = 0;
        const cudaError_t status = cudaOccupancyMaxActiveClusters(&count, gemm_wgmma_cluster, &probe);
        if (std::getenv("ROOFLINE_LAB04_DIAG")) {  // for a profiling run: what the launch was told
            cudaFuncAttributes attributes{};
            cudaFuncGetAttributes(&attributes, gemm_wgmma_cluster);
            std::fprintf(stderr, "wgmma_cluster: cudaOccupancyMaxActiveClusters = %d (%s) for %d SMs; %d registers, %d bytes "
                         "of shared memory per block\n", count, cudaGetErrorString(status),
                         roofline::tma::multiprocessor_count(), attributes.numRegs, shared_bytes);
        }
        if (status != cudaSuccess || count < 1) count = roofline::tma::multiprocessor_count() / kClusterSize;
        return count;
    }();
    const int pairs = (M / (kBlockM * kClusterSize)) * (N / kBlockN);
    config.gridDim = dim3(std::min(pairs, resident_clusters) * kClusterSize);
    cudaLaunchKernelEx(&config, gemm_wgmma_cluster, a_map, b_map, C, M, N, K);
}

}  // namespace
