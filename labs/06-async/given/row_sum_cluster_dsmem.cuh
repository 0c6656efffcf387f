// Given code for lab 06's part 9 (kernels/09_row_sum_cluster_dsmem.cu): the cluster, group and chunk sizes and the shared memory ring. The skeleton and
// the solution include this one file; the kernel (row_sum_cluster) is the kernel file's.
#pragma once
#include "roofline/ptx/cluster.cuh"
#include "roofline/ptx/mbarrier.cuh"
#include "roofline/contract/reduction.cuh"
#include "roofline/ptx/tma.cuh"

#include <cuda_bf16.h>
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

namespace {

constexpr int kClusterSize = 4;                  // blocks per cluster, splitting each row group's columns
constexpr int kGroupRows = 8;                    // rows per group: one warp per row
constexpr int kBoxCols = 256;                    // a TMA box is 8 x 256 (the box limit is 256 per dimension)
constexpr int kBoxesPerChunk = 4;
constexpr int kChunkCols = kBoxCols * kBoxesPerChunk;  // 1024 columns: a 16 KiB chunk per stage
constexpr int kStages = 6;
constexpr int kThreads = 32 * kGroupRows;        // warp w sums row w of the group
constexpr std::uint32_t kChunkBytes = kGroupRows * kChunkCols * sizeof(__nv_bfloat16);

struct SharedStorage {
    alignas(128) __nv_bfloat16 chunks[kStages][kBoxesPerChunk][kGroupRows][kBoxCols];
    std::uint64_t full[kStages];
    float partials[2][kGroupRows];               // this block's part of each row, by group parity
};

}  // namespace
