// Lab 06, part 2: the row sums of part 1 with warp specialization.
//
// Nine warps: warps 0-7 consume (4 rows of each tile each, as in part 1), warp 8
// produces. Each stage now has two barriers: "full" (1 arrival + the tile's bytes) and
// "empty" (kConsumerWarps arrivals). Write the kernel (lesson 06, sections 5 and 10.3); what
// it must guarantee, and why:
//   - both barriers of every stage initialised (for the arrivals they will really get: one
//     producer thread on full, one per consumer warp on empty) and fenced before any use;
//   - the producer (one lane of warp 8) refills a stage only after the stage's empty barrier
//     says every consumer warp has finished it, and its first pass through the ring must not
//     wait at all: a fresh barrier counts the phase before its first as complete (section 3),
//     which decides the parity the producer waits for;
//   - a consumer warp frees a stage only when all its lanes are done reading it (a lane that
//     arrives for the warp must know that), and no block-wide barrier remains in the loop:
//     removing it is the rung, since a __syncthreads makes every warp wait for the slowest;
//   - the sums as in part 1.
// Predict first: what did part 1's __syncthreads per tile cost, and what will this gain?
#include "roofline/ptx/mbarrier.cuh"
#include "roofline/ptx/tma.cuh"
#include "roofline/contract/reduction.cuh"

#include <cuda_bf16.h>

#include <algorithm>
#include <cstdint>

#include "given/row_sum_warp_specialized.cuh"

namespace {

__global__ void __launch_bounds__(kThreads) row_sum_specialized(const __grid_constant__ CUtensorMap x_map,
                                                                float* sums, int rows, int cols) {
    extern __shared__ __align__(128) unsigned char shared_bytes[];
    auto& shared = *reinterpret_cast<SharedStorage*>(shared_bytes);
    const int col_tiles = cols / kTileCols;
    const int my_groups = (rows / kTileRows - blockIdx.x + gridDim.x - 1) / gridDim.x;
    const int my_tiles = my_groups * col_tiles;
    // TODO: the kernel the head of this file describes.
}

}  // namespace

// The launch (given).
#include "given/row_sum_warp_specialized_launch.cuh"

ROOFLINE_ROW_SUM_VARIANT(row_sum_warp_specialized, launch_row_sum_specialized);
