// Defect 1 of lab 02: a copy that walks each 4 KiB tile down its columns.   (your file: profile, then fix)
// The array is cut into tiles of 32 rows x 32 floats (one row = 128 bytes). Lane r of a
// warp takes row r, so one warp instruction touches 32 different rows: 32 sectors of
// 32 bytes for 128 useful bytes. Every float is still read once and written once, and
// the tile is small enough to stay in cache while its block walks it.
// Before you profile: how many DRAM bytes (`roofline predict ... --bytes`)? How many
// bytes through the L2, and why would they differ? Then `roofline profile` and read the
// sectors per request and the L2 column. Fix: let consecutive lanes take consecutive
// addresses (and move 16 bytes per thread while you are at it).
#include "roofline/contract/elementwise.cuh"

namespace {

constexpr int kTile = 32;  // a tile is kTile x kTile floats

__global__ void copy_transposed_kernel(const float* __restrict__ x, float* __restrict__ y, std::size_t n) {
    const std::size_t tile_floats = kTile * kTile;
    const std::size_t tiles = n / tile_floats;
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, warps = blockDim.x / 32;
    for (std::size_t t = blockIdx.x; t < tiles; t += gridDim.x) {
        const std::size_t base = t * tile_floats;
        for (int column = warp; column < kTile; column += warps) {
            const std::size_t i = base + std::size_t(lane) * kTile + column;  // lane = row: 128 bytes apart
            y[i] = x[i];
        }
    }
    // The part that does not fill a whole tile, one float per thread.
    for (std::size_t i = tiles * tile_floats + blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
         i += std::size_t(gridDim.x) * blockDim.x)
        y[i] = x[i];
}

void copy_transposed(const float* x, float* y, std::size_t n, cudaStream_t stream) {
    int device = 0, sms = 0;
    cudaGetDevice(&device);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    copy_transposed_kernel<<<sms * 8, 256, 0, stream>>>(x, y, n);
}

}  // namespace

ROOFLINE_COPY_VARIANT(copy_transposed_fp32, copy_transposed);
