// Given code for lab 06's FP8 rungs (kernels/11_fp8_gemm.cu, kernels/12_fp8_gemm_block_scaled.cu):
// the tile sizes, the shared-memory ring, the tile order, the producer, and the store of a
// consumer's 64 x 128 part of C. The skeletons and the solutions include this one file; the
// kernel (gemm_fp8, and in it the consumer warpgroups' loop) is the kernel file's.
//
// The shape of the kernel is part 3's (a producer warpgroup with TMA, two consumer warpgroups
// with wgmma, a persistent grid walking tiles in groups of rows), with FP8's numbers:
//   a K block is 128 e4m3 = 128 bytes, one swizzle row: the same 128-byte-swizzled tiles and
//     descriptors as bf16's 64-wide slices, and 4 wgmma m64n128k32 per K block;
//   the tile is 128 x 128, not 128 x 256: each consumer keeps TWO sets of accumulators (the
//     wgmma's own and the promoted fp32 sums, 64 registers each), and 2 x 128 would not fit
//     in the 232 registers a consumer thread can claim;
//   M and N need not be multiples of the tile: the TMA unit fills rows past the end of A or
//     Bt with zeros, and store_tile_bf16 writes only the elements inside C.
#pragma once
#include "roofline/contract/gemm.cuh"
#include "roofline/ptx/mbarrier.cuh"
#include "roofline/ptx/tma.cuh"
#include "roofline/ptx/wgmma.cuh"

#include <cuda_bf16.h>
#include <cuda_fp8.h>

#include <cstdint>

namespace {

constexpr int kBlockM = 128, kBlockN = 128;
constexpr int kBlockK = 128;                          // e4m3 elements = bytes: one 128-byte swizzle row
constexpr int kMmaK = 32;                             // wgmma m64n128k32: 4 per K block
constexpr int kStages = 6;
constexpr int kConsumers = 2;                         // 64 rows of the tile each
constexpr int kThreads = 128 * (kConsumers + 1);      // warpgroup 0 produces
constexpr int kGroupRows = 8;                         // tile rows per group of the tile order
constexpr std::uint32_t kTileBytes = kBlockM * kBlockK;  // A's 128 x 128 bytes; Bt's the same (kBlockN = 128)
static_assert(kBlockN == roofline::gemm::kFp8ScaleBlock, "one tile column is one 128-row block of Bt's scales");
static_assert(kBlockK == roofline::gemm::kFp8ScaleBlock, "one K block is one block of scales and one promotion");

struct SharedStorage {
    alignas(1024) std::uint8_t a[kStages][kBlockM * kBlockK];  // 128-byte-swizzled, as the TMA unit writes them
    alignas(1024) std::uint8_t b[kStages][kBlockN * kBlockK];
    std::uint64_t full[kStages];                             // the stage's bytes have landed
    std::uint64_t empty[kStages];                            // every consumer warp is done reading the stage
};
static_assert(sizeof(SharedStorage) + 1024 <= 227 * 1024, "an H200 block may have at most 227 KiB of shared memory");

// The dynamic shared memory, rounded up to 1024 bytes (the swizzle atom; the launch asks for 1 KiB more).
__device__ inline SharedStorage& shared_storage() {
    extern __shared__ unsigned char shared_raw[];
    const auto base = (reinterpret_cast<std::uintptr_t>(shared_raw) + 1023) & ~std::uintptr_t(1023);
    return *reinterpret_cast<SharedStorage*>(base);
}

// Thread 0 initialises the ring's barriers; the caller then syncs the block.
__device__ inline void init_barriers(SharedStorage& shared) {
    if (threadIdx.x != 0) return;
    for (int s = 0; s < kStages; ++s) {
        roofline::mbarrier::init(&shared.full[s], 1);
        roofline::mbarrier::init(&shared.empty[s], kConsumers * 4);  // one arrival per consumer warp
    }
    roofline::mbarrier::fence_init();
}

// Tile t -> (tile row, tile column): groups of kGroupRows tile rows, walked down a group's
// rows before one column right, so that the blocks running at once share A's and Bt's
// panels in L2 (part 3's order).
__device__ inline void tile_position(int tile, int tiles_m, int tiles_n, int& tile_m, int& tile_n) {
    const int per_group = kGroupRows * tiles_n;
    const int first_m = (tile / per_group) * kGroupRows;
    const int rows = tiles_m - first_m < kGroupRows ? tiles_m - first_m : kGroupRows;
    tile_m = first_m + (tile % per_group) % rows;
    tile_n = (tile % per_group) / rows;
}

// The producer (one thread): for each of this block's tiles (blockIdx.x, + gridDim.x, ...),
// each K block into the next stage of the ring. `iteration` counts the K blocks the block
// has loaded, across tiles: stage iteration % kStages, pass iteration / kStages. The
// consumers count theirs the same way.
__device__ inline void run_producer(SharedStorage& shared, const CUtensorMap* a_map, const CUtensorMap* b_map,
                                    int tiles_m, int tiles_n, int k_blocks) {
    roofline::tma::prefetch_map(a_map);
    roofline::tma::prefetch_map(b_map);
    int iteration = 0;
    for (int tile = blockIdx.x; tile < tiles_m * tiles_n; tile += gridDim.x) {
        int tile_m = 0, tile_n = 0;
        tile_position(tile, tiles_m, tiles_n, tile_m, tile_n);
        for (int kb = 0; kb < k_blocks; ++kb, ++iteration) {
            const int stage = iteration % kStages;
            // The stage's n-th refill waits for its n-th freeing; on the first pass, parity 1
            // of a fresh barrier returns at once.
            roofline::mbarrier::wait(&shared.empty[stage], ((iteration / kStages) & 1) ^ 1);
            // A box past the end of A or Bt still counts all its bytes (the zeros it fills in).
            roofline::mbarrier::arrive_expect_tx(&shared.full[stage], 2 * kTileBytes);
            roofline::tma::load_2d(shared.a[stage], a_map, tile_m * kBlockM, kb * kBlockK, &shared.full[stage]);
            roofline::tma::load_2d(shared.b[stage], b_map, tile_n * kBlockN, kb * kBlockK, &shared.full[stage]);
        }
    }
}

// The rows of the tile this thread's accumulators hold: row and row + 8 (wgmma's fragment
// of D, roofline/wgmma.cuh), counted from the tile's first row.
__device__ inline int fragment_row(int consumer) {
    const int t = threadIdx.x % 128;
    return consumer * 64 + 16 * (t / 32) + (t % 32) / 4;
}

// Consumer `consumer`'s 64 x 128 part of tile (tile_m, tile_n) of C, times `scale`, as
// bf16; only the elements inside C (M and N may end inside the tile). N odd: C's rows are
// not 4-byte aligned, so one element at a time; otherwise bf16 pairs.
__device__ inline void store_tile_bf16(const float (&total)[64], float scale, __nv_bfloat16* C, int M, int N,
                                       int tile_m, int tile_n, int consumer) {
    const int row = tile_m * kBlockM + fragment_row(consumer);
    const int first_col = tile_n * kBlockN + 2 * (threadIdx.x % 4);
    const bool pairs = N % 2 == 0;
#pragma unroll
    for (int j = 0; j < 16; ++j) {
        const int col = first_col + 8 * j;
#pragma unroll
        for (int half = 0; half < 2; ++half) {
            const int r = row + 8 * half;
            if (r >= M || col >= N) continue;
            const float v0 = total[4 * j + 2 * half] * scale, v1 = total[4 * j + 2 * half + 1] * scale;
            __nv_bfloat16* out = C + std::size_t(r) * N + col;
            if (pairs) {  // col even and N even: col + 1 < N too
                *reinterpret_cast<__nv_bfloat162*>(out) = __floats2bfloat162_rn(v0, v1);
            } else {
                out[0] = __float2bfloat16(v0);
                if (col + 1 < N) out[1] = __float2bfloat16(v1);
            }
        }
    }
}

}  // namespace
