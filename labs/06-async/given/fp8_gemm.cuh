// Given code for lab 06's FP8 rungs (kernels/11_fp8_gemm.cu, kernels/12_fp8_gemm_block_scaled.cu):
// the tile and cluster shape, the shared-memory ring, the tile order, the producer, the
// release of a stage and the store of a consumer's part of C. The skeletons and the solutions
// include this one file; the kernel (gemm_fp8, and in it the consumer warpgroups' loop) is
// the kernel file's.
//
// The shape of the kernel is part 4's (a producer warpgroup with TMA, two consumer warpgroups
// with wgmma, clusters of two blocks sharing a tile by multicast, a persistent grid walking
// the tiles in groups of rows), with FP8's numbers:
//   a K block is 128 e4m3 = 128 bytes, one swizzle row: the same 128-byte-swizzled tiles and
//     descriptors as bf16's 64-wide slices, and 4 wgmma m64n128k32 per K block and 64 rows;
//   every K block's partial sums are PROMOTED out of the wgmma's accumulator into fp32
//     registers of the consumer's own (lessons/06-async.md, "FP8"). A consumer thread holds
//     both: kPartials accumulators of 64 floats for the wgmma (two, so that one K block's
//     wgmmas run while the previous block's partial is promoted) and 64 x kWaves promoted
//     sums. That is what caps the tile: 2 x 64 + 64 = 192 of the 232 registers a consumer
//     thread can claim, where bf16's 128 x 256 tile (128 accumulators a thread) has no
//     second copy to hold;
//   the two blocks of a cluster take two neighbouring tiles of one tile row (tile columns
//     2p and 2p + 1): the same rows of A. Each block loads half of A's tile and multicasts
//     it to both, so A's bytes are read from L2 once per pair; Bt's tile is each block's own;
//   M and N need not be multiples of the tile: the TMA unit fills rows past the end of A or
//     Bt with zeros, and store_tile_bf16 writes only the elements inside C. A pair whose
//     second tile column lies past N still runs both blocks (the multicast needs both); the
//     second computes a tile it never stores.
//
// The three choices below are the design's knobs. The course's tuning sweep
// (scripts/device/fp8_sweep.sh) builds the reference kernel files with other values by
// defining these before it includes them; a kernel file of the lab does not.
//   ROOFLINE_FP8_BLOCK_M   128 or 256: rows of the tile (kWaves = 1 or 2 slabs of 64 rows
//                          a consumer; 256 needs kPartials = 1: 64 + 128 registers)
//   ROOFLINE_FP8_PARTIALS  1 (wait<0> every K block: the promotion stalls the consumer) or
//                          2 (two wgmma accumulators taking turns: wait<1>)
//   ROOFLINE_FP8_CLUSTER   1 or 2 (blocks per cluster; 2: A's tile multicast to the pair)
#pragma once
#include "roofline/contract/gemm.cuh"
#include "roofline/ptx/cluster.cuh"
#include "roofline/ptx/mbarrier.cuh"
#include "roofline/ptx/tma.cuh"
#include "roofline/ptx/wgmma.cuh"

#include <cuda_bf16.h>
#include <cuda_fp8.h>

#include <cstdint>

#ifndef ROOFLINE_FP8_BLOCK_M
#define ROOFLINE_FP8_BLOCK_M 128
#endif
#ifndef ROOFLINE_FP8_PARTIALS
#define ROOFLINE_FP8_PARTIALS 2
#endif
#ifndef ROOFLINE_FP8_CLUSTER
#define ROOFLINE_FP8_CLUSTER 2
#endif

namespace {

constexpr int kBlockM = ROOFLINE_FP8_BLOCK_M, kBlockN = 128;
constexpr int kBlockK = 128;                          // e4m3 elements = bytes: one 128-byte swizzle row
constexpr int kMmaK = 32;                             // wgmma m64n128k32: 4 per K block and slab
constexpr int kConsumers = 2;
constexpr int kWaves = kBlockM / (64 * kConsumers);   // slabs of 64 rows per consumer: slab wave * 2 + consumer
constexpr int kPartials = ROOFLINE_FP8_PARTIALS;      // wgmma accumulators per consumer thread
constexpr int kCluster = ROOFLINE_FP8_CLUSTER;        // blocks per cluster, side by side along N
constexpr int kTotals = 64 * kWaves;                  // promoted fp32 sums per consumer thread
constexpr int kThreads = 128 * (kConsumers + 1);      // warpgroup 0 produces
constexpr int kGroupRows = 8;                         // tile rows per group of the tile order
constexpr int kARowsPerBlock = kBlockM / kCluster;    // the part of A's tile one block of a cluster loads
constexpr std::uint32_t kATileBytes = kBlockM * kBlockK;
constexpr std::uint32_t kBTileBytes = kBlockN * kBlockK;
constexpr int kStages = 192 * 1024 / (kATileBytes + kBTileBytes);  // 6 at 128 x 128, 4 at 256 x 128
static_assert(kBlockM == 128 || kBlockM == 256, "ROOFLINE_FP8_BLOCK_M: 128 or 256");
static_assert(kPartials == 1 || (kPartials == 2 && kWaves == 1),
              "ROOFLINE_FP8_PARTIALS: 1, or 2 with 128-row tiles (2 x 64 + 128 registers would not fit)");
static_assert(kCluster == 1 || kCluster == 2, "ROOFLINE_FP8_CLUSTER: 1 or 2");
static_assert(kBlockN == roofline::gemm::kFp8ScaleBlock, "one tile column is one 128-row block of Bt's scales");
static_assert(kBlockK == roofline::gemm::kFp8ScaleBlock, "one K block is one block of scales and one promotion");

struct SharedStorage {
    alignas(1024) std::uint8_t a[kStages][kBlockM * kBlockK];  // 128-byte-swizzled, as the TMA unit writes them
    alignas(1024) std::uint8_t b[kStages][kBlockN * kBlockK];
    std::uint64_t full[kStages];                             // the stage's bytes have landed (both halves of A)
    std::uint64_t empty[kStages];                            // every consumer warp of the cluster is done with it
};
static_assert(sizeof(SharedStorage) + 1024 <= 227 * 1024, "an H200 block may have at most 227 KiB of shared memory");

// The dynamic shared memory, rounded up to 1024 bytes (the swizzle atom; the launch asks for 1 KiB more).
__device__ inline SharedStorage& shared_storage() {
    extern __shared__ unsigned char shared_raw[];
    const auto base = (reinterpret_cast<std::uintptr_t>(shared_raw) + 1023) & ~std::uintptr_t(1023);
    return *reinterpret_cast<SharedStorage*>(base);
}

// Every thread, first: thread 0 initialises the ring's barriers, then the block (or the
// cluster: the other block arrives on ours and multicasts into our stages) syncs.
__device__ inline void start_blocks(SharedStorage& shared) {
    if (threadIdx.x == 0) {
        for (int s = 0; s < kStages; ++s) {
            roofline::mbarrier::init(&shared.full[s], 1);
            roofline::mbarrier::init(&shared.empty[s], kCluster * kConsumers * 4);  // one arrival per consumer warp
        }
        roofline::mbarrier::fence_init();
    }
    if constexpr (kCluster > 1) {
        roofline::cluster::sync();
    } else {
        __syncthreads();
    }
}

// Every thread, last (the producer warpgroup too: no early return). In a cluster, a block
// may not exit while the other still arrives on its barriers.
__device__ inline void finish_blocks() {
    if constexpr (kCluster > 1) {
        __syncwarp();
        roofline::cluster::sync();
    }
}

// This block's place in its cluster, and the grid's work: one unit = one tile row and
// kCluster neighbouring tile columns (tile columns rounded up to a multiple of kCluster).
// Cluster c takes units c, c + clusters, ...; both blocks of a cluster walk the same units.
__device__ inline int block_rank() {
    if constexpr (kCluster > 1) return int(roofline::cluster::block_rank());
    return 0;
}
__device__ inline int work_count(int tiles_m, int tiles_n) { return tiles_m * ((tiles_n + kCluster - 1) / kCluster); }
__device__ inline int first_work() { return blockIdx.x / kCluster; }
__device__ inline int work_stride() { return gridDim.x / kCluster; }

// Unit -> this block's tile (tile row, tile column): groups of kGroupRows tile rows, walked
// down a group's rows before one unit right, so that the clusters running at once share A's
// and Bt's panels in L2 (part 3's order). tile_n may be tiles_n (a pair's second tile past N).
__device__ inline void tile_position(int work, int tiles_m, int tiles_n, int& tile_m, int& tile_n) {
    const int units_n = (tiles_n + kCluster - 1) / kCluster;
    const int per_group = kGroupRows * units_n;
    const int first_m = (work / per_group) * kGroupRows;
    const int rows = tiles_m - first_m < kGroupRows ? tiles_m - first_m : kGroupRows;
    tile_m = first_m + (work % per_group) % rows;
    tile_n = ((work % per_group) / rows) * kCluster + block_rank();
}

// The producer (one thread): for each of this block's tiles, each K block into the next
// stage of the ring: its half of A's tile to both blocks of the cluster, its own Bt tile.
// `iteration` counts the K blocks the block has loaded, across tiles: stage iteration %
// kStages, pass iteration / kStages. The consumers count theirs the same way.
__device__ inline void run_producer(SharedStorage& shared, const CUtensorMap* a_map, const CUtensorMap* b_map,
                                    int M, int tiles_m, int tiles_n, int k_blocks) {
    roofline::tma::prefetch_map(a_map);
    roofline::tma::prefetch_map(b_map);
    const int rank = block_rank();
    int iteration = 0;
    for (int work = first_work(); work < work_count(tiles_m, tiles_n); work += work_stride()) {
        int tile_m = 0, tile_n = 0;
        tile_position(work, tiles_m, tiles_n, tile_m, tile_n);
        // A box wholly past the end of A or Bt (a short last tile's second half, a pair's tile
        // past N) loads rows that exist instead; their products are never stored.
        int a_row = tile_m * kBlockM + rank * kARowsPerBlock;
        if (a_row >= M) a_row = 0;
        const int b_row = (tile_n < tiles_n ? tile_n : 0) * kBlockN;
        for (int kb = 0; kb < k_blocks; ++kb, ++iteration) {
            const int stage = iteration % kStages;
            // The stage's n-th refill waits for its n-th freeing, by both blocks' consumers;
            // on the first pass, parity 1 of a fresh barrier returns at once.
            roofline::mbarrier::wait(&shared.empty[stage], ((iteration / kStages) & 1) ^ 1);
            // Both halves of A (ours and the other block's multicast) and our Bt; a box partly
            // past the end still counts all its bytes (the zeros it fills in).
            roofline::mbarrier::arrive_expect_tx(&shared.full[stage], kATileBytes + kBTileBytes);
            std::uint8_t* a_part = shared.a[stage] + rank * kARowsPerBlock * kBlockK;
            if constexpr (kCluster > 1) {
                roofline::cluster::load_2d_multicast(a_part, a_map, a_row, kb * kBlockK, &shared.full[stage],
                                                     (1u << kCluster) - 1);
            } else {
                roofline::tma::load_2d(a_part, a_map, a_row, kb * kBlockK, &shared.full[stage]);
            }
            roofline::tma::load_2d(shared.b[stage], b_map, b_row, kb * kBlockK, &shared.full[stage]);
        }
    }
}

// A consumer is done reading `stage`: one arrival per warp on the stage's empty barrier in
// every block of the cluster (each block's producer refills the other's half of A).
__device__ inline void release_stage(SharedStorage& shared, int stage) {
    if (threadIdx.x % 32 != 0) return;
    if constexpr (kCluster > 1) {
        for (int r = 0; r < kCluster; ++r) roofline::cluster::arrive_remote(&shared.empty[stage], r);
    } else {
        roofline::mbarrier::arrive(&shared.empty[stage]);
    }
}

// Keeps the compiler from moving reads of a wgmma's accumulator above the wait for it
// (the asm statements of roofline/ptx/wgmma.cuh order memory, not registers).
template <int kCount>
__device__ inline void fence_registers(float (&registers)[kCount]) {
#pragma unroll
    for (int i = 0; i < kCount; ++i) asm volatile("" : "+f"(registers[i])::"memory");
}

// The first row of slab `slab` (64 rows) in the stage's A tile, as a wgmma descriptor.
__device__ inline std::uint64_t a_descriptor(const SharedStorage& shared, int stage, int slab) {
    return roofline::wgmma::sw128_kmajor_descriptor(roofline::tma::smem_address(shared.a[stage] + slab * 64 * kBlockK));
}
__device__ inline std::uint64_t b_descriptor(const SharedStorage& shared, int stage) {
    return roofline::wgmma::sw128_kmajor_descriptor(roofline::tma::smem_address(shared.b[stage]));
}

// The row of the tile this thread's accumulators of wave `wave` hold: row and row + 8
// (wgmma's fragment of D, roofline/ptx/wgmma.cuh), counted from the tile's first row.
__device__ inline int fragment_row(int consumer, int wave) {
    const int t = threadIdx.x % 128;
    return (wave * kConsumers + consumer) * 64 + 16 * (t / 32) + (t % 32) / 4;
}

// Consumer `consumer`'s part of tile (tile_m, tile_n) of C (kWaves slabs of 64 x 128), times
// `scale`, as bf16; only the elements inside C (M and N may end inside the tile; a pair's
// tile past N stores nothing). N odd: C's rows are not 4-byte aligned, so one element at a
// time; otherwise bf16 pairs.
__device__ inline void store_tile_bf16(const float (&total)[kTotals], float scale, __nv_bfloat16* C, int M, int N,
                                       int tile_m, int tile_n, int consumer) {
    const int first_col = tile_n * kBlockN + 2 * (threadIdx.x % 4);
    const bool pairs = N % 2 == 0;
#pragma unroll
    for (int wave = 0; wave < kWaves; ++wave) {
        const int row = tile_m * kBlockM + fragment_row(consumer, wave);
#pragma unroll
        for (int j = 0; j < 16; ++j) {
            const int col = first_col + 8 * j;
#pragma unroll
            for (int half = 0; half < 2; ++half) {
                const int r = row + 8 * half;
                if (r >= M || col >= N) continue;
                const float v0 = total[64 * wave + 4 * j + 2 * half] * scale;
                const float v1 = total[64 * wave + 4 * j + 2 * half + 1] * scale;
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
}

}  // namespace
