// Lab 05, rung 1: a transpose through shared memory (lessons/05-layouts.md, "Banks").
//
// y[c][r] = x[r][c]. A block of 32 x 8 threads moves one 32 x 32 tile: it reads the
// tile's rows from x into shared memory (a warp reads 32 neighbours: coalesced), then
// writes the tile's columns as rows of y (a warp writes 32 neighbours: coalesced too).
// Write it the plain way, tile[32][32]; the warp that writes y then reads a column of
// the tile. Before you grade: how many wavefronts does that column read take, for fp32
// and for bf16 (your `wavefronts` from part 7 answers it)? What does that do to time?
#include "roofline/contract/transpose.cuh"

#include <cuda_bf16.h>

namespace {

constexpr int kTile = 32;
constexpr int kRowsPerPass = 8;  // a block of 32 x 8 threads: each moves 4 elements

template <class T>
__global__ void transpose_naive(const T* x, T* y, int rows, int cols) {
    __shared__ T tile[kTile][kTile];
    const int r0 = blockIdx.y * kTile, c0 = blockIdx.x * kTile;
    // TODO 1: each thread copies x[r0 + j][c0 + threadIdx.x] into tile[j][threadIdx.x]
    //         for j = threadIdx.y, threadIdx.y + 8, ... (inside the matrix only).
    // TODO 2: __syncthreads(), then write y[c0 + j][r0 + threadIdx.x] from the tile.
    (void)tile;
    (void)x;
    (void)y;
    (void)rows;
    (void)cols;
    (void)r0;
    (void)c0;
}

template <class T>
void launch_naive(const T* x, T* y, int rows, int cols, cudaStream_t stream) {
    dim3 grid((cols + kTile - 1) / kTile, (rows + kTile - 1) / kTile), block(kTile, kRowsPerPass);
    transpose_naive<T><<<grid, block, 0, stream>>>(x, y, rows, cols);
}

}  // namespace

ROOFLINE_TRANSPOSE_VARIANT(transpose_naive_fp32, launch_naive<float>);
ROOFLINE_TRANSPOSE_VARIANT(transpose_naive_bf16, launch_naive<__nv_bfloat16>);
