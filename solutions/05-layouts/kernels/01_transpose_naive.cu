// Lab 05, rung 1 (solution): a transpose through shared memory, with bank conflicts.
//
// A block moves one 32 x 32 tile. It reads the tile's rows from x (a warp reads 32
// neighbours: coalesced), keeps it in shared memory, and writes the tile's columns as
// rows of y (a warp writes 32 neighbours: coalesced too). Shared memory is what lets
// both sides be coalesced; but the warp that writes y reads a *column* of the tile,
// tile[0..31][j]: 32 addresses 32 elements apart. For fp32 that is 128 bytes apart, the
// same bank every time: 32 wavefronts for one request. For bf16, 64 bytes apart: 16.
// Expected: well under the copy rate; the shared-memory reads, not DRAM, set the time.
#include "roofline/contract/transpose.cuh"

#include <cuda_bf16.h>

namespace {

constexpr int kTile = 32;
constexpr int kRowsPerPass = 8;  // a block of 32 x 8 threads: each moves 4 elements

template <class T>
__global__ void transpose_naive(const T* x, T* y, int rows, int cols) {
    __shared__ T tile[kTile][kTile];
    const int r0 = blockIdx.y * kTile, c0 = blockIdx.x * kTile;
    for (int j = threadIdx.y; j < kTile; j += kRowsPerPass) {
        int r = r0 + j, c = c0 + threadIdx.x;
        if (r < rows && c < cols) tile[j][threadIdx.x] = x[std::size_t(r) * cols + c];
    }
    __syncthreads();
    for (int j = threadIdx.y; j < kTile; j += kRowsPerPass) {
        int out_row = c0 + j, out_col = r0 + threadIdx.x;  // y[c][r] = x[r][c]
        if (out_row < cols && out_col < rows) y[std::size_t(out_row) * rows + out_col] = tile[threadIdx.x][j];
    }
}

template <class T>
void launch_naive(const T* x, T* y, int rows, int cols, cudaStream_t stream) {
    dim3 grid((cols + kTile - 1) / kTile, (rows + kTile - 1) / kTile), block(kTile, kRowsPerPass);
    transpose_naive<T><<<grid, block, 0, stream>>>(x, y, rows, cols);
}

}  // namespace

ROOFLINE_TRANSPOSE_VARIANT(transpose_naive_fp32, launch_naive<float>);
ROOFLINE_TRANSPOSE_VARIANT(transpose_naive_bf16, launch_naive<__nv_bfloat16>);
