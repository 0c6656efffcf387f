// Given code for lab 06's part 2 (kernels/02_row_sum_warp_specialized.cu): the tile sizes and the shared memory ring. The skeleton and
// the solution include this one file; the kernel (row_sum_specialized) is the kernel file's.
#pragma once
#include "roofline/ptx/mbarrier.cuh"
#include "roofline/contract/reduction.cuh"
#include "roofline/ptx/tma.cuh"

#include <cuda_bf16.h>
#include <algorithm>
#include <cstdint>

namespace {

constexpr int kTileRows = 32;
constexpr int kTileCols = 256;
constexpr int kStages = 6;
constexpr int kConsumerWarps = 8;
constexpr int kThreads = 32 * (kConsumerWarps + 1);
constexpr int kRowsPerWarp = kTileRows / kConsumerWarps;
constexpr std::uint32_t kTileBytes = kTileRows * kTileCols * sizeof(__nv_bfloat16);

struct SharedStorage {
    alignas(128) __nv_bfloat16 tiles[kStages][kTileRows][kTileCols];
    std::uint64_t full[kStages];
    std::uint64_t empty[kStages];
};

}  // namespace
