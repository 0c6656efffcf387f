// Given code for lab 06's part 7 (kernels/07_wgmma_one_warpgroup.cu): the tile sizes, the shared memory ring and the store of the
// accumulators. The skeleton and the
// solution include this one file; the kernel (gemm_one_warpgroup) is the kernel file's.
#pragma once
#include "roofline/contract/gemm.cuh"
#include "roofline/ptx/mbarrier.cuh"
#include "roofline/ptx/tma.cuh"
#include "roofline/ptx/wgmma.cuh"

#include <cuda_bf16.h>
#include <algorithm>
#include <cstdint>

namespace {

constexpr int kBlockM = 64, kBlockN = 256, kBlockK = 64;  // 64 bf16 = the 128-byte swizzle width
constexpr int kStages = 4;
constexpr int kThreads = 128;  // one warpgroup
constexpr std::uint32_t kATileBytes = kBlockM * kBlockK * 2;
constexpr std::uint32_t kBTileBytes = kBlockN * kBlockK * 2;

struct SharedStorage {
    alignas(1024) __nv_bfloat16 a[kStages][kBlockM * kBlockK];  // swizzled tiles must start on 1024 bytes
    alignas(1024) __nv_bfloat16 b[kStages][kBlockN * kBlockK];
    std::uint64_t full[kStages];
};

// The warpgroup's 64 x 256 tile (tile_m, tile_n), from the wgmma accumulator fragment:
// rows row and row + 8, columns 8j + 2 (lane % 4) + {0, 1}.
__device__ inline void store_tile(const float (&accumulator)[128], __nv_bfloat16* C, int N, int tile_m, int tile_n) {
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int row = tile_m * kBlockM + warp * 16 + lane / 4;
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
