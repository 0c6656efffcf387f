// Lab 05, rung 3: 16-byte accesses and the 128-byte XOR swizzle, by hand (lesson: "Swizzles").
//
// A block of 256 threads moves a tile of 64 rows x 128 bytes (32 fp32 or 64 bf16 columns).
// Every shared-memory access is one 16-byte chunk (a uint4): 4 fp32 or 8 bf16 of one row.
//   - Fill: thread q (q = threadIdx.x, then + 256) copies chunk q % 8 of tile row q / 8 from
//     x, and stores it at chunk swizzled_chunk(row, chunk) of that row.
//   - Drain: warp w takes chunk w of rows lane and lane + 32, reads it from its swizzled
//     place, and writes its elements e = 0 .. 16/sizeof(T) - 1 to
//     y[c0 + w * (16/sizeof(T)) + e][r0 + row].
// No padding: the XOR spreads a column of chunks over all 32 banks. Check it with your
// `wavefronts` (part 7) before you grade: eight lanes reading rows i .. i+7 at chunk w.
#include "roofline/contract/transpose.cuh"

#include <cuda_bf16.h>

#include <cstdint>

namespace {

constexpr int kTileRows = 64;
constexpr int kRowBytes = 128;
constexpr int kChunks = kRowBytes / 16;  // 8 chunks of 16 bytes per tile row
constexpr int kThreads = 256;            // 8 warps: one per chunk column

// Where chunk `chunk` of tile row `row` lives: the 128-byte swizzle (Swizzle<3,4,3> on bytes).
__device__ inline int swizzled_chunk(int row, int chunk) {
    // TODO: the XOR. (Returning `chunk` is correct too, but conflicted: try it and compare.)
    (void)row;
    return chunk;
}

template <class T>
__global__ void __launch_bounds__(kThreads) transpose_swizzled(const T* x, T* y, int rows, int cols) {
    constexpr int kTileCols = kRowBytes / sizeof(T);
    __shared__ alignas(128) uint4 tile[kTileRows][kChunks];
    const int r0 = blockIdx.y * kTileRows, c0 = blockIdx.x * kTileCols;
    // TODO 1: fill the tile (see the top of the file), then __syncthreads().
    // TODO 2: drain it into y.
    (void)tile;
    (void)x;
    (void)y;
    (void)rows;
    (void)cols;
    (void)r0;
    (void)c0;
}

// rows must be a multiple of 64, cols of 128 bytes' worth (lab.yaml: divisible_by).
template <class T>
void launch_swizzled(const T* x, T* y, int rows, int cols, cudaStream_t stream) {
    dim3 grid(cols / (kRowBytes / sizeof(T)), rows / kTileRows);
    transpose_swizzled<T><<<grid, kThreads, 0, stream>>>(x, y, rows, cols);
}

}  // namespace

ROOFLINE_TRANSPOSE_VARIANT(transpose_swizzled_fp32, launch_swizzled<float>);
ROOFLINE_TRANSPOSE_VARIANT(transpose_swizzled_bf16, launch_swizzled<__nv_bfloat16>);
