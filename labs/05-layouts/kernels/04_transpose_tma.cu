// Lab 05, rung 4: the TMA fills the tile, already swizzled (lesson: "What the TMA writes").
//
// Rung 3's tile and drain, but one thread asks the TMA unit for the 64 x 128-byte box,
// encoded with CU_TENSOR_MAP_SWIZZLE_128B (given below): it lands with chunk q of row i
// at chunk q ^ (i % 8), rung 3's layout. The pattern follows the shared-memory address
// bits, so the tile must start on a 1024-byte boundary (the alignas below).
// Lab 06's rung 1 shows the mbarrier steps: init, fence_init, arrive_expect_tx with the
// box's bytes, load_2d; then every thread waits for phase 0.
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

template <class T>
__global__ void __launch_bounds__(kThreads) transpose_tma(const __grid_constant__ CUtensorMap x_map, T* y, int rows) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
    __trap();  // the TMA exists from Hopper (compute capability 9.0) on
#else
    constexpr int kTileCols = kRowBytes / sizeof(T);
    __shared__ alignas(1024) uint4 tile[kTileRows][kChunks];
    __shared__ std::uint64_t full;
    const int r0 = blockIdx.y * kTileRows, c0 = blockIdx.x * kTileCols;
    // TODO 1: thread 0 initialises `full` for one arrival, fences, arms it with
    //         sizeof(tile) bytes and asks for the box at (r0, c0); then __syncthreads().
    // TODO 2: every thread waits for phase 0 of `full`.
    // TODO 3: rung 3's drain, reading chunk q of row i from chunk q ^ (i % 8).
    (void)tile;
    (void)full;
    (void)x_map;
    (void)y;
    (void)rows;
    (void)r0;
    (void)c0;
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

ROOFLINE_TRANSPOSE_VARIANT(transpose_tma_fp32, launch_tma<float>);
ROOFLINE_TRANSPOSE_VARIANT(transpose_tma_bf16, launch_tma<__nv_bfloat16>);
