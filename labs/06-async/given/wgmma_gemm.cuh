// Given code for lab 06's part 3 (kernels/03_wgmma_gemm.cu): the tile sizes, the shared memory ring, the tile order and the
// store of the accumulators. The skeleton and the
// solution include this one file; the kernel (gemm_wgmma) is the kernel file's.
#pragma once
#include "roofline/contract/gemm.cuh"
#include "roofline/ptx/mbarrier.cuh"
#include "roofline/ptx/tma.cuh"
#include "roofline/ptx/wgmma.cuh"

#include <cuda_bf16.h>
#include <algorithm>
#include <cstdint>

namespace {

constexpr int kBlockM = 128, kBlockN = 256, kBlockK = 64;  // 64 bf16 = the 128-byte swizzle width
constexpr int kStages = 4;
constexpr int kConsumers = 2;                              // warpgroups, 64 rows of the tile each
constexpr int kThreads = 128 * (kConsumers + 1);
constexpr std::uint32_t kATileBytes = kBlockM * kBlockK * 2;
constexpr std::uint32_t kBTileBytes = kBlockN * kBlockK * 2;
constexpr int kGroupM = 8;  // tiles are handed out 8 rows of tiles at a time, for L2 reuse

struct SharedStorage {
    alignas(1024) __nv_bfloat16 a[kStages][kBlockM * kBlockK];  // swizzled tiles must start on 1024 bytes
    alignas(1024) __nv_bfloat16 b[kStages][kBlockN * kBlockK];
    std::uint64_t full[kStages];
    std::uint64_t empty[kStages];
};

// Tile t -> (tile row, tile column), grouped: kGroupM tile rows are finished column by
// column before the next group starts, so concurrent blocks share panels of A and B.
__device__ inline void tile_position(int tile, int tiles_m, int tiles_n, int& tile_m, int& tile_n) {
    const int tiles_per_group = kGroupM * tiles_n;
    const int first_m = (tile / tiles_per_group) * kGroupM;
    const int group_rows = min(tiles_m - first_m, kGroupM);
    tile_m = first_m + (tile % tiles_per_group) % group_rows;
    tile_n = (tile % tiles_per_group) / group_rows;
}

// Consumer `consumer`'s 64 x 256 part of tile (tile_m, tile_n), from the wgmma accumulator
// fragment: rows row and row + 8, columns 8j + 2 (lane % 4) + {0, 1}.
__device__ inline void store_tile(const float (&accumulator)[128], __nv_bfloat16* C, int N, int tile_m, int tile_n,
                                  int consumer) {
    const int warp_in_group = (threadIdx.x / 32) % 4, lane = threadIdx.x % 32;
    const int row = tile_m * kBlockM + consumer * 64 + warp_in_group * 16 + lane / 4;
    const int col = tile_n * kBlockN + 2 * (lane % 4);
    __nv_bfloat16* out = C + std::size_t(row) * N + col;
#pragma unroll
    for (int j = 0; j < kBlockN / 8; ++j) {
        *reinterpret_cast<__nv_bfloat162*>(out + 8 * j) = __floats2bfloat162_rn(accumulator[4 * j], accumulator[4 * j + 1]);
        *reinterpret_cast<__nv_bfloat162*>(out + 8 * std::size_t(N) + 8 * j) =
            __floats2bfloat162_rn(accumulator[4 * j + 2], accumulator[4 * j + 3]);
    }
}

}  // namespace
