// Lab 06, part 1: row sums fed by TMA through a ring of shared-memory stages.
// sums[r] = sum over c of x[r][c]; x is [rows][cols] bf16, the sums fp32.
//
// The launch below is written for you: a persistent grid (one block per SM), a tensor
// map that cuts x into 32 x 256 tiles, and the shared memory (kStages tiles and one
// "full" mbarrier per stage). Block b owns row groups b, b + gridDim.x, ... (32 rows
// each) and walks their tiles in order: all column tiles of its first group, then of
// the next. Write the kernel:
//   1. thread 0: init each full barrier for 1 arrival (mbarrier::init), fence_init(),
//      then start the first kStages tiles: mbarrier::arrive_expect_tx(&full[s], kTileBytes)
//      and tma::load_2d(tile, &x_map, first row, first column, &full[s]);
//      everyone: __syncthreads();
//   2. for the i-th tile: wait on full[i % kStages] with parity (i / kStages) & 1; each
//      warp adds its 4 rows (one 16-byte load per lane covers a 256-wide row;
//      reduction::sum_of_8_bf16 adds the 8 values of one load);
//      __syncthreads() so that nobody still reads the stage; thread 0 refills it
//      with tile i + kStages;
//   3. after a group's last column tile: reduce each row across the warp
//      (__shfl_xor_sync) and lane 0 writes sums[row].
// Predict first: how many bytes must be in flight per SM to keep HBM busy?
#include "roofline/ptx/mbarrier.cuh"
#include "roofline/ptx/tma.cuh"
#include "roofline/contract/reduction.cuh"

#include <cuda_bf16.h>

#include <algorithm>
#include <cstdint>

#include "given/row_sum_tma_ring.cuh"

namespace {

__global__ void __launch_bounds__(kThreads) row_sum_ring(const __grid_constant__ CUtensorMap x_map, float* sums,
                                                         int rows, int cols) {
    extern __shared__ __align__(128) unsigned char shared_bytes[];
    auto& shared = *reinterpret_cast<SharedStorage*>(shared_bytes);
    const int col_tiles = cols / kTileCols;
    const int my_groups = (rows / kTileRows - blockIdx.x + gridDim.x - 1) / gridDim.x;
    const int my_tiles = my_groups * col_tiles;
    // TODO: steps 1-3 above.
}

}  // namespace

// The launch (given).
#include "given/row_sum_tma_ring_launch.cuh"

ROOFLINE_ROW_SUM_VARIANT(row_sum_tma_ring, launch_row_sum_ring);
