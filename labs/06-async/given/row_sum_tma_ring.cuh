// Given code for lab 06's part 1 (kernels/01_row_sum_tma_ring.cu): the tile sizes and the shared memory ring. The skeleton and
// the solution include this one file; the kernel (row_sum_ring) is the kernel file's.
#pragma once
#include "roofline/ptx/mbarrier.cuh"
#include "roofline/contract/reduction.cuh"
#include "roofline/ptx/tma.cuh"

#include <cuda_bf16.h>
#include <algorithm>
#include <cstdint>

namespace {

constexpr int kTileRows = 32;
constexpr int kTileCols = 256;  // 512 bytes: one row is one warp-wide 16-byte load
constexpr int kStages = 6;
constexpr int kThreads = 256;   // 8 warps x 4 rows of the tile
constexpr int kRowsPerWarp = kTileRows / (kThreads / 32);
constexpr std::uint32_t kTileBytes = kTileRows * kTileCols * sizeof(__nv_bfloat16);

struct SharedStorage {
    alignas(128) __nv_bfloat16 tiles[kStages][kTileRows][kTileCols];
    std::uint64_t full[kStages];
};

}  // namespace
