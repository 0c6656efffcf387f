// The design of solutions/05-layouts/kernels/04_transpose_tma.cu, shared with the lab's open rung
// (kernels/05_open_transpose.cu), which reuses it as our reference; each file registers it under its own name.
#pragma once
// Lab 05, rung 4 (solution): the TMA fills the tile, already swizzled.
//
// The same tile and the same draining as rung 3, but one thread asks the TMA unit for
// the 64 x 128-byte box with CU_TENSOR_MAP_SWIZZLE_128B, and the box lands in shared
// memory with chunk q of row i at chunk q ^ (i % 8): exactly rung 3's layout, without
// 8 KiB of loads and stores through the threads. The swizzle is a function of the
// shared-memory address bits (bits 4-6 ^= bits 7-9), so the tile must start on a
// 1024-byte boundary for row i of the box to be row i of the pattern.
// Expected: as rung 3 or a little better (fewer instructions per byte); the stores to y
// are the same.
#include "roofline/ptx/mbarrier.cuh"
#include "roofline/ptx/tma.cuh"
#include "roofline/contract/transpose.cuh"

#include <cuda_bf16.h>

#include <cstdint>

namespace {

constexpr int kTileRows = 64;
constexpr int kRowBytes = 128;
constexpr int kChunks = kRowBytes / 16;
constexpr int kThreads = 256;

__device__ inline int swizzled_chunk(int row, int chunk) { return chunk ^ (row % 8); }

template <class T>
__global__ void __launch_bounds__(kThreads) transpose_tma(const __grid_constant__ CUtensorMap x_map, T* y, int rows) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
    __trap();  // the TMA exists from Hopper (compute capability 9.0) on
#else
    constexpr int kPerChunk = 16 / sizeof(T);
    constexpr int kTileCols = kRowBytes / sizeof(T);
    __shared__ alignas(1024) uint4 tile[kTileRows][kChunks];
    __shared__ std::uint64_t full;
    const int r0 = blockIdx.y * kTileRows, c0 = blockIdx.x * kTileCols;

    if (threadIdx.x == 0) {
        if (roofline::tma::smem_address(tile) % 1024 != 0) __trap();  // the swizzle would not start at row 0
        roofline::mbarrier::init(&full, 1);
        roofline::mbarrier::fence_init();
        roofline::mbarrier::arrive_expect_tx(&full, sizeof(tile));
        roofline::tma::load_2d(&tile[0][0], &x_map, r0, c0, &full);
    }
    __syncthreads();  // the barrier is initialised before anyone waits on it
    roofline::mbarrier::wait(&full, 0);

    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    for (int half = 0; half < 2; ++half) {
        int row = lane + 32 * half;
        uint4 packed = tile[row][swizzled_chunk(row, warp)];
        const T* values = reinterpret_cast<const T*>(&packed);
        for (int e = 0; e < kPerChunk; ++e) {
            int out_row = c0 + warp * kPerChunk + e;
            y[std::size_t(out_row) * rows + r0 + row] = values[e];
        }
    }
#endif
}

template <class T> constexpr CUtensorMapDataType kTmaType = CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
template <> constexpr CUtensorMapDataType kTmaType<__nv_bfloat16> = CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;

// rows must be a multiple of 64, cols of 128 bytes' worth (lab.yaml: divisible_by).
template <class T>
void launch_tma(const T* x, T* y, int rows, int cols, cudaStream_t stream) {
    constexpr int kTileCols = kRowBytes / sizeof(T);
    const CUtensorMap x_map = roofline::tma::make_2d(x, kTmaType<T>, sizeof(T), rows, cols, kTileRows, kTileCols,
                                                     CU_TENSOR_MAP_SWIZZLE_128B);
    dim3 grid(cols / kTileCols, rows / kTileRows);
    transpose_tma<T><<<grid, kThreads, 0, stream>>>(x_map, y, rows);
}

}  // namespace

