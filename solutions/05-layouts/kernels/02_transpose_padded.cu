// Lab 05, rung 2 (solution): the same transpose, the tile's rows padded by one word.
//
// With one extra 4-byte word per row (one fp32, two bf16), element (i, j) of the tile sits
// at word 33 i + j (fp32) or 17 i + j / 2 (bf16): down a column the word steps by 33 or
// 17, both odd, so the 32 rows of a column fall in 32 different banks. One wavefront per
// request, at the price of 1/32 more shared memory. The layout is (32,32):(33,1)
// instead of (32,32):(32,1): same tile, a different function from coordinate to address.
// Expected: near the copy rate for fp32; bf16 moves 2 bytes per thread per access, so
// twice the instructions per byte.
#include "roofline/contract/transpose.cuh"

#include <cuda_bf16.h>

namespace {

constexpr int kTile = 32;
constexpr int kRowsPerPass = 8;

template <class T>
__global__ void transpose_padded(const T* x, T* y, int rows, int cols) {
    constexpr int kPad = 4 / sizeof(T);  // one 4-byte word
    __shared__ T tile[kTile][kTile + kPad];
    const int r0 = blockIdx.y * kTile, c0 = blockIdx.x * kTile;
    for (int j = threadIdx.y; j < kTile; j += kRowsPerPass) {
        int r = r0 + j, c = c0 + threadIdx.x;
        if (r < rows && c < cols) tile[j][threadIdx.x] = x[std::size_t(r) * cols + c];
    }
    __syncthreads();
    for (int j = threadIdx.y; j < kTile; j += kRowsPerPass) {
        int out_row = c0 + j, out_col = r0 + threadIdx.x;
        if (out_row < cols && out_col < rows) y[std::size_t(out_row) * rows + out_col] = tile[threadIdx.x][j];
    }
}

template <class T>
void launch_padded(const T* x, T* y, int rows, int cols, cudaStream_t stream) {
    dim3 grid((cols + kTile - 1) / kTile, (rows + kTile - 1) / kTile), block(kTile, kRowsPerPass);
    transpose_padded<T><<<grid, block, 0, stream>>>(x, y, rows, cols);
}

}  // namespace

ROOFLINE_TRANSPOSE_VARIANT(transpose_padded_fp32, launch_padded<float>);
ROOFLINE_TRANSPOSE_VARIANT(transpose_padded_bf16, launch_padded<__nv_bfloat16>);
