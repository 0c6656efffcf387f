// Given code for lab 08's rung 4 (kernels/04_warp_specialized.cu): the tile sizes, the
// schedule's switches, the shared storage, the tensor maps and TMA boxes, the work items'
// order, the wgmma descriptors and S = Q K^T. The kernel that uses them is fa3_kernel.cuh.
#pragma once
#include "roofline/contract/attention.cuh"
#include "roofline/ptx/mbarrier.cuh"
#include "roofline/ptx/tma.cuh"
#include "roofline/ptx/wgmma.cuh"
#include "wgmma_attention.cuh"

#include <cuda_bf16.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace {

using namespace roofline;

constexpr int kBlockQ = 128;   // queries per work item: 64 per consumer warpgroup
constexpr int kBlockK = 128;   // keys per tile (the N of S's wgmma)
constexpr int kChunk = 64;     // head_dim columns per TMA box: the 128-byte swizzle width
constexpr int kConsumers = 2;
constexpr int kThreads = 128 * (kConsumers + 1);
constexpr int kConsumerThreads = 128 * kConsumers;
constexpr float kLog2e = 1.4426950408889634f;

template <int Stages, bool Overlap, bool PingPong, bool Persistent, bool HeadMajor = false, int PolyExpQuarters = 0,
          bool TmaStore = false>
struct Schedule {
    static constexpr int kStages = Stages;
    static constexpr bool kOverlap = Overlap;
    static constexpr bool kPingPong = PingPong;
    static constexpr bool kPersistent = Persistent;
    static constexpr bool kHeadMajor = HeadMajor;
    static constexpr int kPolyExpQuarters = PolyExpQuarters;  // of the exponentials, quarters off the SFU
    static constexpr bool kTmaStore = TmaStore;
    static_assert(!PingPong || Overlap, "the ping-pong takes turns at the overlapped schedule's matmul issues");
    static_assert(PolyExpQuarters >= 0 && PolyExpQuarters <= 2, "at most half the exponentials by polynomial");
    static_assert(!TmaStore || Stages == 2, "O's staging boxes (32 KiB) fit beside 2 stages only");
};
// O's staging boxes for the TMA store: per consumer, its 64 rows in boxes of 64 columns,
// 128-byte swizzled as the map says; nothing without the TMA store.
template <bool Staged, int Boxes>
struct OutStaging {
    alignas(1024) __nv_bfloat16 o[Boxes][64 * kChunk];
};
template <int Boxes>
struct OutStaging<false, Boxes> {};

template <int D, int Stages, bool TmaStore = false>
struct SharedStorage {
    static constexpr int kChunks = D / kChunk;
    alignas(1024) __nv_bfloat16 q[kChunks][kBlockQ * kChunk];  // swizzled boxes start on 1024 bytes
    alignas(1024) __nv_bfloat16 k[Stages][kChunks][kBlockK * kChunk];
    alignas(1024) __nv_bfloat16 v[Stages][kChunks][kBlockK * kChunk];
    OutStaging<TmaStore, kConsumers * kChunks> out;
    std::uint64_t q_full, q_empty;
    std::uint64_t k_full[Stages], k_empty[Stages];
    std::uint64_t v_full[Stages], v_empty[Stages];
};

// A [batch x heads][seq][D] bf16 array, in boxes of `box_rows` rows x 64 columns of one head.
CUtensorMap make_head_map(const __nv_bfloat16* base, int heads_total, int seq, int d, int box_rows = kBlockK) {
    CUtensorMap map{};
    const cuuint64_t dims[3] = {cuuint64_t(d), cuuint64_t(seq), cuuint64_t(heads_total)};  // innermost first
    const cuuint64_t strides[2] = {cuuint64_t(d) * 2, cuuint64_t(seq) * d * 2};
    const cuuint32_t box[3] = {kChunk, cuuint32_t(box_rows), 1};
    const cuuint32_t element_strides[3] = {1, 1, 1};
    CUresult status = tma::encode_tiled_entry()(&map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 3, const_cast<__nv_bfloat16*>(base),
                                                dims, strides, box, element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE,
                                                CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                                                CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (status != CUDA_SUCCESS)
        throw std::runtime_error("cuTensorMapEncodeTiled failed (error " + std::to_string(int(status)) +
                                 ") for the attention tensor map");
    return map;
}

// One 128 x 64 box: columns col.., rows row.. of head `head`, counted on `barrier`.
__device__ inline void load_box(void* destination, const CUtensorMap* map, int col, int row, int head,
                                std::uint64_t* barrier) {
    asm volatile(
        "cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4}], [%5];"
        :
        : "r"(tma::smem_address(destination)), "l"(map), "r"(col), "r"(row), "r"(head),
          "r"(tma::smem_address(barrier))
        : "memory");
}

// One 64 x 64 box of O from shared memory to columns col.., rows row.. of head `head` (rows
// past the end of the head are not written: TMA clips them), in this thread's bulk group.
[[maybe_unused]] __device__ inline void store_box(const CUtensorMap* map, const void* source, int col, int row, int head) {
    asm volatile("cp.async.bulk.tensor.3d.global.shared::cta.bulk_group [%0, {%1, %2, %3}], [%4];"
                 :
                 : "l"(map), "r"(col), "r"(row), "r"(head), "r"(tma::smem_address(source))
                 : "memory");
}

// Work item `index`: which head, which block of 128 queries and how many key tiles it reads.
// Two orders of the items:
//   block-major: the heads vary fastest, the query blocks slowest, last first: causal, the
//     longest items come first. The blocks at work at one time then read K and V of every
//     head: at 4k, 64 heads x 2 MiB, more than the L2 holds (the ncu profile of 2026-12-01:
//     L2 hit rate 45%, K and V read ~10 times from DRAM);
//   head-major (plain attention only: every item is as long): the query blocks vary
//     fastest, so the 132 blocks at work share 4 or 5 heads' K and V (8-10 MiB) in the L2,
//     and each tile comes from DRAM about once. Causal keeps the block-major order, which
//     the load balance needs.
struct WorkItem {
    int head, q_block, key_tiles;
};
template <bool HeadMajor>
__device__ inline WorkItem work_item(int index, int heads_total, int seq, bool causal) {
    const int q_blocks = (seq + kBlockQ - 1) / kBlockQ;
    const int key_tiles_all = (seq + kBlockK - 1) / kBlockK;
    WorkItem item;
    if (HeadMajor && !causal) {
        item.head = index / q_blocks;
        item.q_block = index % q_blocks;
    } else {
        item.head = index % heads_total;
        item.q_block = q_blocks - 1 - index / heads_total;
    }
    item.key_tiles = causal ? min(key_tiles_all, item.q_block + 1) : key_tiles_all;
    return item;
}

// The work item a block takes in round `round` (one item a round), back and forth across the
// grid of g blocks: block b takes item b, then 2g - 1 - b, then 2g + b, ..., so that with the
// items sorted longest first (causal) the blocks' totals even out. With one block per item
// (not persistent) round 0 is the only one.
__device__ inline int round_item(int round) {
    const int g = gridDim.x, b = blockIdx.x;
    return round * g + ((round & 1) ? g - 1 - b : b);
}

// A ring position: the stage and the parity of its current pass.
struct RingPosition {
    int stage = 0;
    std::uint32_t phase = 0;
    template <int Stages>
    __device__ void advance() {
        if (++stage == Stages) stage = 0, phase ^= 1;
    }
};

__device__ inline std::uint32_t pack_bf16(float lo, float hi) {
    __nv_bfloat162 pair = __floats2bfloat162_rn(lo, hi);
    return *reinterpret_cast<std::uint32_t*>(&pair);
}

// 2^x on the special-function unit, subnormal results flushed to zero. exp2f without
// --use_fast_math compiles to the same MUFU.EX2 plus instructions that rescale subnormal
// results: work on the FP32 pipe that the softmax, the tile's critical path, does not need
// (a weight under 2^-126 rounds to nothing against the row's largest, which is 1).
__device__ __forceinline__ float fast_exp2(float x) {
    float y;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
}

// 2^x for x <= 0 on the FMA and integer pipes instead of the SFU, as FlashAttention-4 does on
// Blackwell: the H100/H200 SFU gives 16 MUFU.EX2 results a clock per SM (4 a scheduler, 8
// cycles a warp instruction), and a tile's 128 x 128 exponentials then take 1024 cycles of
// the 2048 its matmuls take. x = j + f, j = round(x) by the 1.5 x 2^23 trick (an FADD), 2^f on
// [-1/2, 1/2] by a cubic (Chebyshev nodes, relative error 1e-4, under bf16's 4e-3 that P is
// rounded to), 2^j added into the exponent bits. x is clamped at -126 first: -inf (a masked
// key) gives a denormal under 2^-126, as good as 0 against the row's largest weight, 1.
[[maybe_unused]] __device__ __forceinline__ float poly_exp2(float x) {
    x = fmaxf(x, -126.0f);
    const float rounded = x + 12582912.0f;  // 1.5 x 2^23: the low mantissa bits now hold round(x)
    const float f = x - (rounded - 12582912.0f);
    float p = fmaf(0.05583828f, f, 0.24263948f);
    p = fmaf(p, f, 0.69313675f);
    p = fmaf(p, f, 0.99992454f);
    // round(x) << 23 is the low bits of `rounded` shifted (the magic constant's shift is 0 mod 2^32).
    return __uint_as_float(__float_as_uint(p) + (__float_as_uint(rounded) << 23));
}

// 2^x for a score of column pair j (0..15) of a tile: of each 4 pairs, the first PolyQuarters
// by poly_exp2, the others on the SFU (j is known at compile time: no branch is left).
template <int PolyQuarters>
__device__ __forceinline__ float tile_exp2(int j, float x) {
    return j % 4 < PolyQuarters ? poly_exp2(x) : fast_exp2(x);
}

// A consumer's wgmma descriptors, built once: any tile's is its base plus an offset in the
// start-address field (16-byte units; shared addresses stay under 2^18 bytes, so the field
// never carries). Rebuilding them per matmul cost ~5 uniform-datapath instructions in front of
// each wgmma (the ncu profile of 2026-12-01: ~10% of the consumers' samples).
template <int D, int Stages>
struct Descriptors {
    static constexpr std::uint32_t kBoxUnits = kBlockK * kChunk * 2 / 16;        // one 128 x 64 box
    static constexpr std::uint32_t kStageUnits = (D / kChunk) * kBoxUnits;      // K (or V) of one stage
    std::uint64_t q, k, v;  // this consumer's 64 rows of Q; stage 0's K and V; chunk 0, step 0
    template <class Storage>
    __device__ Descriptors(Storage& shared, int consumer)
        : q(wgmma::sw128_kmajor_descriptor(tma::smem_address(shared.q[0] + consumer * 64 * kChunk))),
          k(wgmma::sw128_kmajor_descriptor(tma::smem_address(shared.k[0][0]))),
          v(wgmma::sw128_mn_major_descriptor(tma::smem_address(shared.v[0][0]), kBlockK * kChunk * 2)) {
        static_assert(sizeof(shared.k[0]) == kStageUnits * 16 && sizeof(shared.v[0]) == kStageUnits * 16 &&
                          sizeof(shared.q[0]) == kBoxUnits * 16,
                      "the descriptor offsets assume Q, K and V boxes of 128 rows x 64 columns, back to back");
    }
};

// S = Q K^T for this consumer's 64 queries and one tile of 128 keys: issued, not committed.
template <int D, int Stages>
__device__ __forceinline__ void issue_scores(float (&s)[64], const Descriptors<D, Stages>& descriptors, int stage) {
    using Units = Descriptors<D, Stages>;
    const std::uint64_t k_stage = descriptors.k + stage * Units::kStageUnits;
#pragma unroll
    for (int c = 0; c < D / kChunk; ++c) {
        const std::uint64_t q_descriptor = descriptors.q + c * Units::kBoxUnits;
        const std::uint64_t k_descriptor = k_stage + c * Units::kBoxUnits;
#pragma unroll
        for (int step = 0; step < kChunk / 16; ++step)  // 16 bf16 = 32 bytes = 2 descriptor units
            wgmma::mma_m64n128k16_ss(s, q_descriptor + 2 * step, k_descriptor + 2 * step, c > 0 || step > 0);
    }
}

// The output so far times the rows' rescale factors. Always, without a branch: a warp vote to
// skip it (when no row grew its maximum) skipped only a third of the tiles at 4k (the profile of
// 2026-12-01), and the branch kept the compiler from slotting these FMULs between the softmax's
// MUFU.EX2s, which leave the issue slots idle 7 cycles in 8.
template <int D>
__device__ __forceinline__ void rescale_out(float (&out)[D / 2], float rescale0, float rescale1) {
#pragma unroll
    for (int j = 0; j < D / 8; ++j) {
        out[4 * j] *= rescale0, out[4 * j + 1] *= rescale0;
        out[4 * j + 2] *= rescale1, out[4 * j + 3] *= rescale1;
    }
}

}  // namespace
