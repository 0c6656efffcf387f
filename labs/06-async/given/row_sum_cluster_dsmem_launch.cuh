// Given code for lab 06's part 9 (kernels/09_row_sum_cluster_dsmem.cu): the tensor map and the launch of
// the kernel file's row_sum_cluster, which the kernel file defines before it includes this.
#pragma once
#include "roofline/ptx/cluster.cuh"
#include "roofline/ptx/mbarrier.cuh"
#include "roofline/contract/reduction.cuh"
#include "roofline/ptx/tma.cuh"

#include <cuda_bf16.h>
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "row_sum_cluster_dsmem.cuh"

namespace {

// rows must be a multiple of 8 and cols of 1024 (lab.yaml: divisible_by).
void launch_row_sum_cluster(const __nv_bfloat16* x, float* sums, int rows, int cols, cudaStream_t stream) {
    const CUtensorMap x_map = roofline::tma::make_2d_bf16(x, rows, cols, kGroupRows, kBoxCols);
    const int shared_bytes = sizeof(SharedStorage);

    cudaLaunchConfig_t config{};
    cudaLaunchAttribute attribute[1];
    attribute[0].id = cudaLaunchAttributeClusterDimension;
    attribute[0].val.clusterDim.x = kClusterSize;
    attribute[0].val.clusterDim.y = 1;
    attribute[0].val.clusterDim.z = 1;
    config.blockDim = dim3(kThreads);
    config.dynamicSmemBytes = shared_bytes;
    config.stream = stream;
    config.attrs = attribute;
    config.numAttrs = 1;

    // How many clusters of four fit at once (a cluster's blocks share one GPC); asked once.
    static const int resident_clusters = [&] {
        cudaFuncSetAttribute(row_sum_cluster, cudaFuncAttributeMaxDynamicSharedMemorySize, shared_bytes);
        cudaLaunchConfig_t probe = config;
        probe.gridDim = dim3(roofline::tma::multiprocessor_count() / kClusterSize * kClusterSize);
        int count = 0;
        const cudaError_t status = cudaOccupancyMaxActiveClusters(&count, row_sum_cluster, &probe);
        if (std::getenv("ROOFLINE_LAB04_DIAG")) {  // what the launch was told
            std::fprintf(stderr, "row_sum_cluster: cudaOccupancyMaxActiveClusters = %d (%s) for %d SMs\n", count,
                         cudaGetErrorString(status), roofline::tma::multiprocessor_count());
        }
        if (status != cudaSuccess || count < 1) {
            (void)cudaGetLastError();  // the query's error is not the launch's
            count = roofline::tma::multiprocessor_count() / kClusterSize;
        }
        return count;
    }();
    const int groups = rows / kGroupRows;
    config.gridDim = dim3(std::min(groups, resident_clusters) * kClusterSize);
    cudaLaunchKernelEx(&config, row_sum_cluster, x_map, sums, rows, cols);
}

}  // namespace
