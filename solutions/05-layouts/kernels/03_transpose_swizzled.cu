// Lab 05, rung 3 (solution): 16-byte accesses and the 128-byte XOR swizzle, by hand.
//
// A block moves a tile of 64 rows x 128 bytes (32 fp32 or 64 bf16 columns), 8 KiB. Every
// shared-memory access is a 16-byte chunk (uint4): 4 fp32 or 8 bf16 of one row. Chunk q
// of row i is stored at chunk q ^ (i % 8) of that row: Swizzle<3,4,3> on byte offsets,
// the pattern the TMA writes with CU_TENSOR_MAP_SWIZZLE_128B (rung 4).
//   - Filling: 8 threads read one 128-byte row of x (coalesced) and store its 8 chunks
//     into one 128-byte row of the tile: permuted, but still all 32 banks.
//   - Draining: warp w takes chunk w of rows lane and lane + 32. Eight neighbouring
//     lanes (one phase of a 16-byte request) read rows i .. i+7 at chunk w ^ (i % 8):
//     8 different chunks, all 32 banks, no conflict. Without the swizzle they would
//     all read chunk w: 8 wavefronts. Each lane then writes its chunk's 4 (or 8)
//     elements as 4 (or 8) rows of y, a warp covering 32 neighbouring elements per row.
// Expected: the copy rate for fp32, within ~10%; bf16 writes 64 bytes per warp store.
#include "roofline/contract/transpose.cuh"

#include <cuda_bf16.h>

#include <cstdint>

namespace {

constexpr int kTileRows = 64;
constexpr int kRowBytes = 128;
constexpr int kChunks = kRowBytes / 16;  // 8 chunks of 16 bytes per tile row
constexpr int kThreads = 256;            // 8 warps: one per chunk column

// Where chunk `chunk` of tile row `row` lives: the 128-byte swizzle.
__device__ inline int swizzled_chunk(int row, int chunk) { return chunk ^ (row % 8); }

template <class T>
__global__ void __launch_bounds__(kThreads) transpose_swizzled(const T* x, T* y, int rows, int cols) {
    constexpr int kPerChunk = 16 / sizeof(T);
    constexpr int kTileCols = kRowBytes / sizeof(T);
    __shared__ alignas(128) uint4 tile[kTileRows][kChunks];
    const int r0 = blockIdx.y * kTileRows, c0 = blockIdx.x * kTileCols;

    for (int q = threadIdx.x; q < kTileRows * kChunks; q += kThreads) {
        int row = q / kChunks, chunk = q % kChunks;
        const T* source = x + std::size_t(r0 + row) * cols + c0 + chunk * kPerChunk;
        tile[row][swizzled_chunk(row, chunk)] = *reinterpret_cast<const uint4*>(source);
    }
    __syncthreads();

    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    for (int half = 0; half < 2; ++half) {
        int row = lane + 32 * half;
        uint4 packed = tile[row][swizzled_chunk(row, warp)];
        const T* values = reinterpret_cast<const T*>(&packed);
        for (int e = 0; e < kPerChunk; ++e) {
            int out_row = c0 + warp * kPerChunk + e;  // an input column
            y[std::size_t(out_row) * rows + r0 + row] = values[e];
        }
    }
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
