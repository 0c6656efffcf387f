// Lab 05, rung 2: the same transpose, each tile row padded (lesson: "Padding").
//
// Copy your rung 1, then give each row of the tile one extra 4-byte word (one fp32, two
// bf16). The tile's layout becomes (32,32):(33,1) in words for fp32. Work out, before
// you grade, which bank element (i, j) falls in, and how many wavefronts a column read
// takes now.
#include "roofline/contract/transpose.cuh"

#include <cuda_bf16.h>

namespace {

constexpr int kTile = 32;
constexpr int kRowsPerPass = 8;

template <class T>
__global__ void transpose_padded(const T* x, T* y, int rows, int cols) {
    constexpr int kPad = 4 / sizeof(T);  // one 4-byte word
    // TODO: rung 1's kernel with a tile of kTile x (kTile + kPad).
    (void)kPad;
    (void)x;
    (void)y;
    (void)rows;
    (void)cols;
}

template <class T>
void launch_padded(const T* x, T* y, int rows, int cols, cudaStream_t stream) {
    dim3 grid((cols + kTile - 1) / kTile, (rows + kTile - 1) / kTile), block(kTile, kRowsPerPass);
    transpose_padded<T><<<grid, block, 0, stream>>>(x, y, rows, cols);
}

}  // namespace

ROOFLINE_TRANSPOSE_VARIANT(transpose_padded_fp32, launch_padded<float>);
ROOFLINE_TRANSPOSE_VARIANT(transpose_padded_bf16, launch_padded<__nv_bfloat16>);
