// Lab 06, part 9 (solution): row sums of FEW LONG rows, each row group split across a
// cluster of four blocks whose partial sums meet in distributed shared memory.
//
// Part 1 gives a block whole groups of 32 rows. At this part's shape (192 rows of 2M
// bf16, 4 MiB a row) that is 6 groups: 6 blocks busy, 126 SMs idle. Here a group is 8 rows
// and each group belongs to one cluster of 4 blocks; the block of cluster rank r streams
// the group's column chunks r, r + 4, r + 8, ... (a chunk: 8 rows x 1024 columns, 16 KiB,
// taken as four 8 x 256 TMA boxes onto one mbarrier) through a 6-stage ring as in part 1.
// 24 groups x 4 blocks = 96 blocks streaming.
//
// The four partial sums of a row are then added without touching global memory: each
// block writes its 8 row partials to its own shared memory, the cluster barrier
// (release, then acquire) makes them visible cluster-wide, and block r reads rows r and
// r + 4 from all four blocks' shared memory (mapa + ld.shared::cluster). The partials are
// double-buffered by group parity, so one cluster barrier per group suffices: a block
// writes buffer g % 2 again only after the next barrier, which every reader of group g
// reaches after its reads. A last barrier keeps every block's shared memory alive until
// the others are done reading it.
//
// Expected: ~88-95% of cudaMemcpy. Little's law: HBM needs ~4.8 TB/s x ~1 us ~ 4.8 MB in
// flight; 96 blocks x 6 stages x 16 KiB keep ~9.4 MB asked for, so 96 of 132 SMs suffice.
// The cluster barrier comes once per group (32 MiB a cluster reads here): negligible.
// Against part 1 (~95% on its own shape) the loss is the ramp at the start and the tail.
#include "roofline/ptx/cluster.cuh"
#include "roofline/ptx/mbarrier.cuh"
#include "roofline/ptx/tma.cuh"
#include "roofline/contract/reduction.cuh"

#include <cuda_bf16.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "given/row_sum_cluster_dsmem.cuh"

namespace {

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
    auto issue = [&](int i) {
        const int stage = i % kStages;
        const int group = cluster + (i / my_chunks) * clusters;
        const int chunk = rank + (i % my_chunks) * kClusterSize;
        roofline::mbarrier::arrive_expect_tx(&shared.full[stage], kChunkBytes);
        for (int b = 0; b < kBoxesPerChunk; ++b) {
            roofline::tma::load_2d(&shared.chunks[stage][b][0][0], &x_map, group * kGroupRows,
                                   chunk * kChunkCols + b * kBoxCols, &shared.full[stage]);
        }
    };

    if (threadIdx.x == 0) {
        roofline::tma::prefetch_map(&x_map);
        for (int s = 0; s < kStages; ++s) roofline::mbarrier::init(&shared.full[s], 1);
        roofline::mbarrier::fence_init();
        for (int i = 0; i < kStages && i < my_tiles; ++i) issue(i);
    }
    __syncthreads();

    int i = 0;  // this block's chunk count so far, across groups
    for (int g = 0; g < my_groups; ++g) {
        float partial = 0;
        for (int c = 0; c < my_chunks; ++c, ++i) {
            const int stage = i % kStages;
            roofline::mbarrier::wait(&shared.full[stage], (i / kStages) & 1);
            for (int b = 0; b < kBoxesPerChunk; ++b) {
                uint4 packed = reinterpret_cast<const uint4*>(&shared.chunks[stage][b][warp][0])[lane];
                partial += roofline::reduction::sum_of_8_bf16(packed);
            }
            __syncthreads();  // every thread is done with this stage
            if (threadIdx.x == 0 && i + kStages < my_tiles) issue(i + kStages);
        }
        for (int offset = 16; offset > 0; offset /= 2) partial += __shfl_xor_sync(0xffffffffu, partial, offset);
        if (lane == 0) shared.partials[g & 1][warp] = partial;

        roofline::cluster::sync();  // all four blocks' partials of this group are written and visible
        const int row = threadIdx.x;  // threads 0..7: block r finishes the rows with row % 4 == r
        if (row < kGroupRows && row % kClusterSize == rank) {
            float total = 0;
            for (int r = 0; r < kClusterSize; ++r) total += roofline::cluster::load_remote(&shared.partials[g & 1][row], r);
            sums[(cluster + g * clusters) * kGroupRows + row] = total;
        }
    }
    roofline::cluster::sync();  // no block leaves while another may still read its partials
}

}  // namespace

// The launch (given).
#include "given/row_sum_cluster_dsmem_launch.cuh"

ROOFLINE_ROW_SUM_VARIANT(row_sum_cluster_dsmem, launch_row_sum_cluster);
