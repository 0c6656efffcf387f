// Lab 06, part 9: row sums of FEW LONG rows, each row group split across a cluster of four
// blocks whose partial sums meet in distributed shared memory.
// sums[r] = sum over c of x[r][c]; x is [rows][cols] bf16, the sums fp32.
//
// Part 1 gives a block whole groups of 32 rows. At this part's shape (192 rows of 2M bf16)
// that is 6 groups: 6 blocks would stream, 126 SMs would idle. Here a group is 8 rows and
// belongs to one cluster of 4 blocks (launched for you with cudaLaunchKernelEx and a
// cluster dimension of 4); the block of cluster rank r takes the group's column chunks
// r, r + 4, r + 8, ... A chunk is 8 rows x 1024 columns (16 KiB): four 8 x 256 TMA boxes
// (a box side is at most 256) counted on one mbarrier. Cluster c owns groups c,
// c + cluster_count(), ...; the block's i-th chunk is chunk rank + (i % my_chunks) * 4 of
// group cluster + (i / my_chunks) * clusters. Write the kernel:
//   1. as part 1: thread 0 inits the kStages full barriers, fence_init(), and starts the
//      first kStages chunks (arrive_expect_tx(&full[s], kChunkBytes), then the four
//      tma::load_2d of the chunk's boxes onto the same barrier); __syncthreads();
//   2. for each of my_groups groups: for each of my_chunks chunks, wait on its stage
//      (parity as in part 1), warp w adds row w of the four boxes (one 16-byte load per
//      lane per box), __syncthreads(), thread 0 refills the stage kStages chunks ahead;
//      then reduce the row across the warp and lane 0 stores it in partials[g % 2][w];
//   3. cluster::sync() (release and acquire across the cluster: every block's partials are
//      written and visible); then one thread per row adds that row's four partials, read
//      from each rank's shared memory with cluster::load_remote, and writes sums[row]
//      (spread the rows over the four blocks);
//   4. after the last group, cluster::sync() once more: a block must not exit while
//      another still reads its shared memory. Every thread of every block must make the
//      same cluster::sync() calls; a rank with no chunks (my_chunks == 0) still takes part.
// Why partials[2]: with one buffer, which block could overwrite a partial still being read?
// Predict first: rung 1's kernel at this shape would run 6 blocks. What fraction of
// cudaMemcpy would that reach, and what does splitting each group over 4 blocks change?
#include "roofline/cluster.cuh"
#include "roofline/mbarrier.cuh"
#include "roofline/tma.cuh"
#include "roofline/reduction.cuh"

#include <cuda_bf16.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

namespace {

constexpr int kClusterSize = 4;                  // blocks per cluster, splitting each row group's columns
constexpr int kGroupRows = 8;                    // rows per group: one warp per row
constexpr int kBoxCols = 256;                    // a TMA box is 8 x 256 (the box limit is 256 per dimension)
constexpr int kBoxesPerChunk = 4;
constexpr int kChunkCols = kBoxCols * kBoxesPerChunk;  // 1024 columns: a 16 KiB chunk per stage
constexpr int kStages = 6;
constexpr int kThreads = 32 * kGroupRows;        // warp w sums row w of the group
constexpr std::uint32_t kChunkBytes = kGroupRows * kChunkCols * sizeof(__nv_bfloat16);

struct SharedStorage {
    alignas(128) __nv_bfloat16 chunks[kStages][kBoxesPerChunk][kGroupRows][kBoxCols];
    std::uint64_t full[kStages];
    float partials[2][kGroupRows];               // this block's part of each row, by group parity
};

__global__ void __launch_bounds__(kThreads) row_sum_cluster(const __grid_constant__ CUtensorMap x_map, float* sums,
                                                            int rows, int cols) {
    extern __shared__ __align__(128) unsigned char shared_bytes[];
    auto& shared = *reinterpret_cast<SharedStorage*>(shared_bytes);
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int rank = int(roofline::cluster::block_rank());
    const int cluster = int(roofline::cluster::cluster_index()), clusters = int(roofline::cluster::cluster_count());

    const int groups = rows / kGroupRows, chunks = cols / kChunkCols;
    const int my_groups = (groups - cluster + clusters - 1) / clusters;
    const int my_chunks = (chunks - rank + kClusterSize - 1) / kClusterSize;  // 0 when chunks <= rank
    const int my_tiles = my_groups * my_chunks;
    // The i-th chunk of this block: group cluster + (i / my_chunks) * clusters, chunk rank + (i % my_chunks) * 4.
    (void)shared, (void)warp, (void)lane, (void)my_tiles, (void)sums;
    // TODO: steps 1-4 above.
}

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

ROOFLINE_ROW_SUM_VARIANT(row_sum_cluster_dsmem, launch_row_sum_cluster);
