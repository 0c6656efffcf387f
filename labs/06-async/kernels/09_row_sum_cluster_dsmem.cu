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
// group cluster + (i / my_chunks) * clusters. Write the kernel (lesson 06, section 10.6);
// what it must guarantee, and why:
//   1. part 1's ring, with a chunk instead of a tile: a chunk is four TMA boxes counted on
//      one full barrier (announce the chunk's bytes, all four copies onto that barrier);
//   2. per group: every chunk of it this block owns summed (warp w takes row w of the four
//      boxes), the stage refilled kStages chunks ahead once no warp reads it; then each row's
//      partial, reduced across the warp, kept in this block's shared memory where the other
//      ranks can read it;
//   3. the four partials of a row meet only after every block of the cluster has written
//      its partials AND they are visible to the others: cluster::sync() is that release and
//      acquire. Then each row's four partials (one per rank, cluster::load_remote) summed
//      once into sums[row], the rows spread over the four blocks;
//   4. a block's shared memory must outlive every read of it: no block exits while another
//      may still load its partials, so a last cluster::sync() after the last group. Every
//      thread of every block makes the same cluster::sync() calls, a rank with no chunks
//      (my_chunks == 0) included, or the cluster deadlocks.
// Why partials[2]: with one buffer, which block could overwrite a partial still being read?
// Predict first: rung 1's kernel at this shape would run 6 blocks. What fraction of
// cudaMemcpy would that reach, and what does splitting each group over 4 blocks change?
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
    (void)shared, (void)warp, (void)lane, (void)my_tiles, (void)sums;
    // TODO: steps 1-4 above.
}

}  // namespace

// The launch (given).
#include "given/row_sum_cluster_dsmem_launch.cuh"

ROOFLINE_ROW_SUM_VARIANT(row_sum_cluster_dsmem, launch_row_sum_cluster);
