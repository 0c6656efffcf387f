// Given code for lab 06's bridge rung (kernels/10_mma_sync_tma.cu): the tile sizes, the
// shared-memory ring, the order of the tiles, the barriers' set-up and the store of C. The
// skeleton and the solution include this one file; the kernel (gemm_mma_sync_tma) is the
// kernel file's.
//
// The shapes: lab 03 rung 9's (a 128 x 256 block tile of eight 64 x 64 warp tiles, K slices
// of 64), now fed by the TMA unit. The operand tiles land in shared memory exactly as the
// tensor maps' boxes are written: A's [128][64] and Bt's [256][64] bf16, row after row of
// 128 bytes, each row's eight 16-byte chunks permuted by the 128-byte swizzle.
#pragma once
#include "roofline/contract/gemm.cuh"
#include "roofline/ptx/mbarrier.cuh"
#include "roofline/ptx/mma_sync.cuh"
#include "roofline/ptx/tma.cuh"
#include "roofline/ptx/wgmma.cuh"

#include <cuda_bf16.h>
#include <cstdint>

namespace {

constexpr int kBlockM = 128, kBlockN = 256, kBlockK = 64;  // 64 bf16 = the 128-byte swizzle width
constexpr int kStages = 4;                                 // 4 x 48 KiB of the 227 KiB an SM offers
constexpr int kWarpM = 64, kWarpN = 64;                    // each mma warp's part of the tile
constexpr int kMmaWarps = (kBlockM / kWarpM) * (kBlockN / kWarpN);  // 2 x 4 = 8: two warpgroups
constexpr int kMmaThreads = 32 * kMmaWarps;
constexpr int kThreads = 128 + kMmaThreads;  // warpgroup 0 produces, warpgroups 1 and 2 compute
constexpr int kTilesM = kWarpM / 16, kTilesN = kWarpN / 8;  // m16n8 tiles a warp: 4 x 8
constexpr int kSteps = kBlockK / 16;                        // k16 steps a K slice
constexpr int kRowBytes = kBlockK * 2;                      // a tile row: 128 bytes, 8 chunks of 16
constexpr std::uint32_t kATileBytes = kBlockM * kRowBytes;  // 16 KiB
constexpr std::uint32_t kBTileBytes = kBlockN * kRowBytes;  // 32 KiB
constexpr int kGroupRows = 16;                              // tile rows per group of the tile order

struct SharedStorage {
    alignas(1024) __nv_bfloat16 a[kStages][kBlockM * kBlockK];  // a swizzled box starts on 1 KiB
    alignas(1024) __nv_bfloat16 b[kStages][kBlockN * kBlockK];
    std::uint64_t full[kStages];   // stage s landed: one arrival (the producer's) and 48 KiB of bytes
    std::uint64_t empty[kStages];  // stage s read: one arrival per mma warp
};
// The epilogue stages C [128][256] bf16 in the A tiles, idle by then.
static_assert(sizeof(SharedStorage::a) >= std::size_t(kBlockM) * kBlockN * 2, "C fits the A stages");

// The launch asks for 1 KiB more than the storage; the storage starts at the first 1 KiB boundary.
__device__ inline SharedStorage& shared_storage(unsigned char* dynamic_shared) {
    const auto address = reinterpret_cast<std::uintptr_t>(dynamic_shared);
    return *reinterpret_cast<SharedStorage*>((address + 1023) & ~std::uintptr_t(1023));
}

// Thread 0 sets up the ring's barriers; everyone waits until they are visible, the TMA unit too.
__device__ inline void init_barriers(SharedStorage& shared) {
    if (threadIdx.x == 0) {
        for (int stage = 0; stage < kStages; ++stage) {
            roofline::mbarrier::init(&shared.full[stage], 1);
            roofline::mbarrier::init(&shared.empty[stage], kMmaWarps);
        }
        roofline::mbarrier::fence_init();
    }
    __syncthreads();
}

// The block's C tile: its first row and first column. The grid is one-dimensional; blocks go
// down a group of kGroupRows tile rows, then one tile column right, so that the ~132 blocks of
// a wave share a few A and Bt panels in L2 instead of sweeping all of Bt.
struct TileOrigin {
    int row, col;
};
__device__ inline TileOrigin tile_of_block(int M, int N) {
    const int tile_rows = M / kBlockM, tile_cols = N / kBlockN;
    const int per_group = kGroupRows * tile_cols;
    const int group_top = (int(blockIdx.x) / per_group) * kGroupRows;
    const int place = int(blockIdx.x) % per_group;
    const int height = min(kGroupRows, tile_rows - group_top);
    return {(group_top + place % height) * kBlockM, (place / height) * kBlockN};
}

// A barrier among the mma warps only (named barrier 1): the producer warpgroup has left.
__device__ inline void mma_warps_sync() { asm volatile("bar.sync 1, %0;" ::"n"(kMmaThreads) : "memory"); }

// Element index of (row, col) in the staged C tile: 32 chunks of 8 bf16 a row, the chunk
// XORed with row % 8, so that the 8 rows one accumulator store instruction writes fall in
// 8 different groups of banks.
__device__ inline int staged_c_index(int row, int col) {
    return row * kBlockN + (((col / 8) ^ (row % 8)) * 8) + col % 8;
}

// The store of C (call it after the K loop, from every mma thread; mma_thread counts 0..255).
// The accumulators of m16n8k16 (see roofline/mma_sync.cuh): tile (i, j) of the warp holds, in
// this lane, rows 16i + lane/4 (elements 0, 1) and 16i + lane/4 + 8 (elements 2, 3), columns
// 8j + 2 (lane % 4) and the one after. They go to shared memory as bf16 pairs, then out to C in
// 16-byte stores, consecutive threads along a row. M and N are tile multiples (divisible_by).
__device__ inline void store_tile(SharedStorage& shared, const float (&acc)[kTilesM][kTilesN][4], __nv_bfloat16* C,
                                  int N, TileOrigin tile, int mma_thread, int warp_row, int warp_col) {
    __nv_bfloat16* staged = &shared.a[0][0];
    const int lane = mma_thread % 32;
    mma_warps_sync();  // every mma warp has done its last ldmatrix of the stages
#pragma unroll
    for (int i = 0; i < kTilesM; ++i)
#pragma unroll
        for (int j = 0; j < kTilesN; ++j)
#pragma unroll
            for (int half = 0; half < 2; ++half) {
                const int row = warp_row + 16 * i + lane / 4 + 8 * half, col = warp_col + 8 * j + 2 * (lane % 4);
                *reinterpret_cast<__nv_bfloat162*>(staged + staged_c_index(row, col)) =
                    __floats2bfloat162_rn(acc[i][j][2 * half], acc[i][j][2 * half + 1]);
            }
    mma_warps_sync();
    constexpr int kChunksPerRow = kBlockN / 8;
#pragma unroll 4
    for (int chunk = mma_thread; chunk < kBlockM * kChunksPerRow; chunk += kMmaThreads) {
        const int row = chunk / kChunksPerRow, col = (chunk % kChunksPerRow) * 8;
        *reinterpret_cast<uint4*>(C + std::size_t(tile.row + row) * N + tile.col + col) =
            *reinterpret_cast<const uint4*>(staged + staged_c_index(row, col));
    }
}

}  // namespace
