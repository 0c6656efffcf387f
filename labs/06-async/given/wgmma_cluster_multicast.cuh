// Given code for lab 06's part 4 (kernels/04_wgmma_cluster_multicast.cu): the tile sizes, the shared memory ring, the pairs' order and
// the store of the accumulators. The skeleton and the
// solution include this one file; the kernel (gemm_wgmma_cluster) is the kernel file's.
#pragma once
#include "roofline/ptx/cluster.cuh"
#include "roofline/contract/gemm.cuh"
#include "roofline/ptx/mbarrier.cuh"
#include "roofline/ptx/tma.cuh"
#include "roofline/ptx/wgmma.cuh"

#include <cuda_bf16.h>
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

namespace {

constexpr int kBlockM = 128, kBlockN = 256, kBlockK = 64;
constexpr int kClusterSize = 2;                               // blocks per cluster, stacked along M
constexpr int kStages = 4;
constexpr int kConsumers = 2;
constexpr int kThreads = 128 * (kConsumers + 1);
constexpr std::uint32_t kATileBytes = kBlockM * kBlockK * 2;
constexpr std::uint32_t kBTileBytes = kBlockN * kBlockK * 2;  // the whole slice, half from each block
constexpr int kBRowsPerBlock = kBlockN / kClusterSize;        // the part of the Bt slice one block loads
constexpr int kGroupPairs = 4;                                // 4 pairs = 8 tile rows, as in part 3

struct SharedStorage {
    alignas(1024) __nv_bfloat16 a[kStages][kBlockM * kBlockK];
    alignas(1024) __nv_bfloat16 b[kStages][kBlockN * kBlockK];
    std::uint64_t full[kStages];
    std::uint64_t empty[kStages];
};
static_assert(sizeof(SharedStorage) + 1024 <= 227 * 1024, "an H200 block may have at most 227 KiB of shared memory");

// Pair p -> (pair row, tile column), grouped as part 3 groups tiles.
__device__ inline void pair_position(int pair, int pairs_m, int tiles_n, int& pair_m, int& tile_n) {
    const int pairs_per_group = kGroupPairs * tiles_n;
    const int first_m = (pair / pairs_per_group) * kGroupPairs;
    const int group_rows = min(pairs_m - first_m, kGroupPairs);
    pair_m = first_m + (pair % pairs_per_group) % group_rows;
    tile_n = (pair % pairs_per_group) / group_rows;
}

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
