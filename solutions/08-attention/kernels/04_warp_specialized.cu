// Rung 4 (solution): Hopper attention, FlashAttention-3 style (sm_90a).
//
// A block's work item is 128 queries of one head; three warpgroups:
//   producer (warpgroup 0): gives back registers (setmaxnreg) and one thread streams the
//     item's Q tile, then K and V tiles of 128 keys into a ring of stages with TMA,
//     128-byte swizzled, K and V on barriers of their own so that S = Q K^T can start
//     before V has landed;
//   consumers (warpgroups 1, 2): take registers; each owns 64 queries. Per key tile:
//     S = Q K^T with wgmma m64n128k16 from shared memory (fp32, 64 registers a thread),
//     the online softmax on those registers (exp2, the scale folded into one FFMA), then
//     O += P V with wgmma m64n{D}k16 taking P straight from registers: the scores'
//     accumulator layout is the A-operand layout, so P never touches shared memory. V is
//     read N-major ("transposed") by the descriptor, as it lies in memory.
//
// The consumers' schedule is `Schedule` below, one switch per FlashAttention-3 idea (Shah
// et al. 2024, section 3): the probe scripts/probes/attn4_variants.cu times each against
// cuDNN, and `Chosen` is the one this file launches.
//   overlap:    intra-warpgroup pipelining. The next tile's S = Q K^T and this tile's
//               O += P V are issued together; the softmax of the new S runs while P V is
//               still on the tensor cores, and O takes that softmax's rescale just before
//               the next P V is issued, under the next S. Without it, a warpgroup waits for
//               its S, then runs its softmax with its tensor-core work drained.
//   ping-pong:  the two consumers issue their matmuls in turn (a pair of named barriers),
//               so that one warpgroup's softmax runs under the other's matmuls by
//               schedule, not by chance.
//   stages:     2 or 3 K/V tiles in flight.
//   persistent: one block per SM walks the work items (longest first, back and forth
//               across the grid), so the producer loads the next item's Q, K and V while the
//               consumers finish this one, and no ragged last wave of whole blocks.
//   head-major: (plain attention) the items in the order that keeps the blocks at work on
//               few heads, so that K and V come from the L2 (work_item).
//   poly-exp:   0, 1 or 2 quarters of the exponentials by a polynomial on the FMA pipe
//               instead of the special-function unit, which is slow on Hopper (poly_exp2).
//   TMA store:  O leaves through shared memory (32 KiB more, 2 stages only) and one TMA
//               store a box instead of 4-byte stores from registers.
//
// Any sequence length: the tensor maps are 3-D ([batch x heads][seq][D]), so a tile that
// runs past the end of a head is zero-filled by TMA, and keys >= seq are masked to -inf.
// Causal: an item stops at its diagonal tile (128 keys = 128 queries) and masks above the
// diagonal there; items are taken longest first.
//
// Shared memory at D = 128: Q 32 KiB + stages x (K 32 + V 32) KiB: 160 KiB at 2 stages,
// 224 KiB at 3 (+ 32 KiB for O's staging with the TMA store, 2 stages only); one block an SM.
#include "roofline/attention.cuh"
#include "roofline/mbarrier.cuh"
#include "roofline/tma.cuh"
#include "roofline/wgmma.cuh"
#include "roofline/wgmma_attention.cuh"

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
// The schedule this rung launches (stages, overlap, ping-pong, persistent, head-major order;
// then poly-exp quarters and the TMA store of O, both off by default).
// On an H200 (2026-12-01, scripts/probes/attn4_variants.cu beside cuDNN) the persistent grid
// alone was the fastest row at 4k and 16k, plain and causal; overlap and ping-pong, on top of
// it, cost 1-4%. The head-major order (work_item below) came after that run, from its ncu
// profile, predicted at ~93% of cuDNN at 4k; graded the same day at 99.1% of cuDNN at 4k,
// 101.9% at 16k, 91.9% and 97.7% causal (results/2026-12-01-h200-runs62-65.md). In that
// run's probe no row beat it at 4k by the 1% that would change this line; the polynomial
// exponentials and the TMA store on their own cost 7-20 points.
using Chosen = Schedule<2, false, false, true, true>;

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

// O += P V: V's 128 keys are the K index (16 rows = 2048 bytes = 128 units a step), head_dim
// the N. Issued, not committed.
template <int D, int Stages>
__device__ __forceinline__ void issue_pv(float (&out)[D / 2], const std::uint32_t (&p)[8][4],
                                         const Descriptors<D, Stages>& descriptors, int stage) {
    const std::uint64_t v_stage = descriptors.v + stage * Descriptors<D, Stages>::kStageUnits;
#pragma unroll
    for (int step = 0; step < 8; ++step) {
        const std::uint64_t v_descriptor = v_stage + step * 128;
        if constexpr (D == 128) wgmma::mma_m64n128k16_rs_bt(out, p[step], v_descriptor);
        else wgmma::mma_m64n64k16_rs_bt(out, p[step], v_descriptor);
    }
}

// One consumer thread's rows (two: row0 and row0 + 8) and their running softmax state.
struct SoftmaxRows {
    int first_row, row0, row1, column_in_pair;  // first_row: the work item's first query
    float scale_log2;                 // log2(e) / sqrt(D): exp(x scale) = exp2(x scale_log2)
    float max0, max1, sum0, sum1;     // max in log2 units; sums over this thread's columns only

    // Masks keys past the end and, causal, above the diagonal (only the last tiles need it),
    // then the online softmax of one tile: s becomes exp2(s scale_log2 - max) in place, the
    // sums grow, and rescale0/1 are the factors the output accumulated so far must take.
    // PolyQuarters: of each 4 column pairs, how many take poly_exp2 rather than the SFU (tile_exp2).
    template <int PolyQuarters>
    __device__ __forceinline__ void tile(float (&s)[64], int key0, int seq, bool causal, float& rescale0,
                                         float& rescale1) {
        if (key0 + kBlockK > seq || (causal && key0 + kBlockK - 1 > first_row)) {
#pragma unroll
            for (int j = 0; j < 16; ++j) {
#pragma unroll
                for (int e = 0; e < 2; ++e) {
                    const int key = key0 + 8 * j + column_in_pair + e;
                    if (key >= seq || (causal && key > row0)) s[4 * j + e] = -INFINITY;
                    if (key >= seq || (causal && key > row1)) s[4 * j + 2 + e] = -INFINITY;
                }
            }
        }
        // The rows' new maxima, over the 4 threads that share a row. Four partial maxima a row,
        // so that the chain of dependent FMNMX is 6 long, not 17 (the profile's FMNMX waited on
        // each other).
        float max0_parts[4], max1_parts[4];
#pragma unroll
        for (int j = 0; j < 4; ++j) {
            max0_parts[j] = fmaxf(s[4 * j], s[4 * j + 1]);
            max1_parts[j] = fmaxf(s[4 * j + 2], s[4 * j + 3]);
        }
#pragma unroll
        for (int j = 4; j < 16; ++j) {
            max0_parts[j % 4] = fmaxf(max0_parts[j % 4], fmaxf(s[4 * j], s[4 * j + 1]));
            max1_parts[j % 4] = fmaxf(max1_parts[j % 4], fmaxf(s[4 * j + 2], s[4 * j + 3]));
        }
        float tile_max0 = fmaxf(fmaxf(max0_parts[0], max0_parts[1]), fmaxf(max0_parts[2], max0_parts[3]));
        float tile_max1 = fmaxf(fmaxf(max1_parts[0], max1_parts[1]), fmaxf(max1_parts[2], max1_parts[3]));
#pragma unroll
        for (int offset = 1; offset < 4; offset *= 2) {
            tile_max0 = fmaxf(tile_max0, __shfl_xor_sync(0xffffffffu, tile_max0, offset));
            tile_max1 = fmaxf(tile_max1, __shfl_xor_sync(0xffffffffu, tile_max1, offset));
        }
        const float new_max0 = fmaxf(max0, tile_max0 * scale_log2), new_max1 = fmaxf(max1, tile_max1 * scale_log2);
        const float base0 = new_max0 == -INFINITY ? 0.0f : new_max0;  // a row with nothing visible yet
        const float base1 = new_max1 == -INFINITY ? 0.0f : new_max1;
        rescale0 = fast_exp2(max0 - base0), rescale1 = fast_exp2(max1 - base1);
        max0 = new_max0, max1 = new_max1;
        sum0 *= rescale0, sum1 *= rescale1;
        float sum0_parts[4] = {0.0f, 0.0f, 0.0f, 0.0f}, sum1_parts[4] = {0.0f, 0.0f, 0.0f, 0.0f};
#pragma unroll
        for (int j = 0; j < 16; ++j) {
            s[4 * j] = tile_exp2<PolyQuarters>(j, s[4 * j] * scale_log2 - base0);  // one FFMA, one MUFU.EX2
            s[4 * j + 1] = tile_exp2<PolyQuarters>(j, s[4 * j + 1] * scale_log2 - base0);
            s[4 * j + 2] = tile_exp2<PolyQuarters>(j, s[4 * j + 2] * scale_log2 - base1);
            s[4 * j + 3] = tile_exp2<PolyQuarters>(j, s[4 * j + 3] * scale_log2 - base1);
            sum0_parts[j % 4] += s[4 * j] + s[4 * j + 1];  // four partial sums: short FADD chains
            sum1_parts[j % 4] += s[4 * j + 2] + s[4 * j + 3];
        }
        sum0 += (sum0_parts[0] + sum0_parts[1]) + (sum0_parts[2] + sum0_parts[3]);
        sum1 += (sum1_parts[0] + sum1_parts[1]) + (sum1_parts[2] + sum1_parts[3]);
    }
};

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

// P's A fragments, one per k16 step over the tile's keys: {s[8t], s[8t+1]}, ... (wgmma_attention.cuh).
__device__ __forceinline__ void pack_p(std::uint32_t (&p)[8][4], const float (&s)[64]) {
#pragma unroll
    for (int step = 0; step < 8; ++step) {
        p[step][0] = pack_bf16(s[8 * step], s[8 * step + 1]);
        p[step][1] = pack_bf16(s[8 * step + 2], s[8 * step + 3]);
        p[step][2] = pack_bf16(s[8 * step + 4], s[8 * step + 5]);
        p[step][3] = pack_bf16(s[8 * step + 6], s[8 * step + 7]);
    }
}

// The ping-pong's turns: consumer c waits at barrier 1 + c for its turn to issue matmuls,
// then hands the turn to the other. Consumer 1 opens the first turn for consumer 0 and
// skips its very last hand-over, so that every wait has exactly one matching arrival.
template <class S>
struct Turns {
    int consumer;
    __device__ __forceinline__ void open() const {
        if constexpr (S::kPingPong)
            if (consumer == 1) wgmma::named_barrier_arrive(1, kConsumerThreads);
    }
    __device__ __forceinline__ void begin() const {
        if constexpr (S::kPingPong) wgmma::named_barrier_sync(1 + consumer, kConsumerThreads);
    }
    __device__ __forceinline__ void end(bool last_of_kernel) const {
        if constexpr (S::kPingPong)
            if (!(consumer == 1 && last_of_kernel)) wgmma::named_barrier_arrive(2 - consumer, kConsumerThreads);
    }
};

template <int D, class S>
__global__ void __launch_bounds__(kThreads, 1)
    attention_fa3(const __grid_constant__ CUtensorMap q_map, const __grid_constant__ CUtensorMap k_map,
                  const __grid_constant__ CUtensorMap v_map, const __grid_constant__ CUtensorMap o_map,
                  __nv_bfloat16* __restrict__ o, int heads_total, int seq,
                  bool causal) {
    constexpr int kStages = S::kStages;
    using Shared = SharedStorage<D, kStages, S::kTmaStore>;
    constexpr int kChunks = Shared::kChunks;
    constexpr std::uint32_t kTileBytes = kBlockK * D * 2;
    extern __shared__ unsigned char shared_raw[];
    auto base = (reinterpret_cast<std::uintptr_t>(shared_raw) + 1023) & ~std::uintptr_t(1023);
    auto& shared = *reinterpret_cast<Shared*>(base);

    const int items = heads_total * ((seq + kBlockQ - 1) / kBlockQ);
    const int warpgroup = threadIdx.x / 128;

    if (threadIdx.x == 0) {
        mbarrier::init(&shared.q_full, 1);
        mbarrier::init(&shared.q_empty, kConsumerThreads);  // every consumer thread arrives
        for (int s = 0; s < kStages; ++s) {
            mbarrier::init(&shared.k_full[s], 1);
            mbarrier::init(&shared.v_full[s], 1);
            mbarrier::init(&shared.k_empty[s], kConsumerThreads);
            mbarrier::init(&shared.v_empty[s], kConsumerThreads);
        }
        mbarrier::fence_init();
    }
    __syncthreads();

    if (warpgroup == 0) {
        wgmma::release_registers<40>();
        if (threadIdx.x == 0) {
            tma::prefetch_map(&q_map);
            tma::prefetch_map(&k_map);
            tma::prefetch_map(&v_map);
            RingPosition ring;
            std::uint32_t q_phase = 0;
            for (int round = 0; round_item(round) < items; ++round) {
                const WorkItem item = work_item<S::kHeadMajor>(round_item(round), heads_total, seq, causal);
                mbarrier::wait(&shared.q_empty, q_phase ^ 1);  // the previous item's last Q K^T is done
                mbarrier::arrive_expect_tx(&shared.q_full, kBlockQ * D * 2);
                for (int c = 0; c < kChunks; ++c)
                    load_box(shared.q[c], &q_map, c * kChunk, item.q_block * kBlockQ, item.head, &shared.q_full);
                q_phase ^= 1;
                for (int tile = 0; tile < item.key_tiles; ++tile) {
                    mbarrier::wait(&shared.k_empty[ring.stage], ring.phase ^ 1);
                    mbarrier::arrive_expect_tx(&shared.k_full[ring.stage], kTileBytes);
                    for (int c = 0; c < kChunks; ++c)
                        load_box(shared.k[ring.stage][c], &k_map, c * kChunk, tile * kBlockK, item.head,
                                 &shared.k_full[ring.stage]);
                    mbarrier::wait(&shared.v_empty[ring.stage], ring.phase ^ 1);
                    mbarrier::arrive_expect_tx(&shared.v_full[ring.stage], kTileBytes);
                    for (int c = 0; c < kChunks; ++c)
                        load_box(shared.v[ring.stage][c], &v_map, c * kChunk, tile * kBlockK, item.head,
                                 &shared.v_full[ring.stage]);
                    ring.advance<kStages>();
                }
            }
        }
        return;
    }

    wgmma::claim_registers<232>();
    const int consumer = warpgroup - 1;
    const int warp_in_group = (threadIdx.x / 32) % 4, lane = threadIdx.x % 32;
    const Turns<S> turns{consumer};
    const Descriptors<D, kStages> descriptors(shared, consumer);
    turns.open();
    RingPosition ring;
    std::uint32_t q_phase = 0;
    for (int round = 0; round_item(round) < items; ++round) {
        const WorkItem item = work_item<S::kHeadMajor>(round_item(round), heads_total, seq, causal);
        const bool last_item = round_item(round + 1) >= items;
        // This thread's two rows of the item (the accumulator layout) and its column pair.
        SoftmaxRows rows;
        rows.first_row = item.q_block * kBlockQ;
        rows.row0 = rows.first_row + consumer * 64 + warp_in_group * 16 + lane / 4;
        rows.row1 = rows.row0 + 8;
        rows.column_in_pair = 2 * (lane % 4);
        rows.scale_log2 = attention::softmax_scale(D) * kLog2e;
        rows.max0 = rows.max1 = -INFINITY;
        rows.sum0 = rows.sum1 = 0.0f;
        float out[D / 2];
#pragma unroll
        for (int i = 0; i < D / 2; ++i) out[i] = 0.0f;
        float s[64];
        std::uint32_t p[8][4];
        float rescale0, rescale1;

        mbarrier::wait(&shared.q_full, q_phase);
        q_phase ^= 1;
        if constexpr (S::kOverlap) {
            // Tile 0's scores alone; then per tile, the next scores and the previous P V together.
            mbarrier::wait(&shared.k_full[ring.stage], ring.phase);
            turns.begin();
            wgmma::fence();
            issue_scores(s, descriptors, ring.stage);
            wgmma::commit();
            turns.end(false);
            wgmma::wait<0>();
            wgmma::fence_operands(s);
            mbarrier::arrive(&shared.k_empty[ring.stage]);
            if (item.key_tiles == 1) mbarrier::arrive(&shared.q_empty);
            rows.tile<S::kPolyExpQuarters>(s, 0, seq, causal, rescale0, rescale1);
            rescale0 = rescale1 = 1.0f;  // out is 0: nothing to rescale
            pack_p(p, s);
            RingPosition v_ring = ring;  // the tile whose P V is next
            ring.advance<kStages>();
            for (int tile = 1; tile < item.key_tiles; ++tile) {
                mbarrier::wait(&shared.k_full[ring.stage], ring.phase);
                mbarrier::wait(&shared.v_full[v_ring.stage], v_ring.phase);
                turns.begin();
                wgmma::fence();
                issue_scores(s, descriptors, ring.stage);
                wgmma::commit();
                // O (P V up to the tile before v_ring's, landed) takes the previous softmax's
                // factors here, under the scores' matmul, as FlashAttention-3 places it: not
                // between P V landing and the next issue, where the tensor cores would wait for it.
                rescale_out<D>(out, rescale0, rescale1);
                wgmma::fence_operands(out);
                wgmma::fence();
                issue_pv<D>(out, p, descriptors, v_ring.stage);
                wgmma::commit();
                turns.end(false);
                wgmma::wait<1>();  // the scores; P V may still run
                wgmma::fence_operands(s);
                mbarrier::arrive(&shared.k_empty[ring.stage]);
                if (tile == item.key_tiles - 1) mbarrier::arrive(&shared.q_empty);
                rows.tile<S::kPolyExpQuarters>(s, tile * kBlockK, seq, causal, rescale0, rescale1);
                wgmma::wait<0>();  // P V: out and p are free again
                wgmma::fence_operands(out);
                mbarrier::arrive(&shared.v_empty[v_ring.stage]);
                pack_p(p, s);
                v_ring = ring;
                ring.advance<kStages>();
            }
            mbarrier::wait(&shared.v_full[v_ring.stage], v_ring.phase);
            turns.begin();
            rescale_out<D>(out, rescale0, rescale1);
            wgmma::fence_operands(out);
            wgmma::fence();
            issue_pv<D>(out, p, descriptors, v_ring.stage);
            wgmma::commit();
            turns.end(last_item);
            wgmma::wait<0>();
            wgmma::fence_operands(out);
            mbarrier::arrive(&shared.v_empty[v_ring.stage]);
        } else {
            // One tile at a time: S, wait, softmax, P V. A tile's P V is not waited for: the
            // next tile's Q K^T is queued behind it, and one wait covers both.
            int previous_stage = -1;
            for (int tile = 0; tile < item.key_tiles; ++tile) {
                mbarrier::wait(&shared.k_full[ring.stage], ring.phase);
                wgmma::fence();
                issue_scores(s, descriptors, ring.stage);
                wgmma::commit();
                wgmma::wait<0>();
                wgmma::fence_operands(s);
                wgmma::fence_operands(out);
                mbarrier::arrive(&shared.k_empty[ring.stage]);
                if (previous_stage >= 0) mbarrier::arrive(&shared.v_empty[previous_stage]);
                if (tile == item.key_tiles - 1) mbarrier::arrive(&shared.q_empty);
                rows.tile<S::kPolyExpQuarters>(s, tile * kBlockK, seq, causal, rescale0, rescale1);
                rescale_out<D>(out, rescale0, rescale1);
                pack_p(p, s);
                mbarrier::wait(&shared.v_full[ring.stage], ring.phase);
                wgmma::fence();
                issue_pv<D>(out, p, descriptors, ring.stage);
                wgmma::commit();
                previous_stage = ring.stage;
                ring.advance<kStages>();
            }
            wgmma::wait<0>();
            wgmma::fence_operands(out);
            mbarrier::arrive(&shared.v_empty[previous_stage]);
        }

        // The rows' sums over the 4 threads of each row, then O / sum, in bf16, rows < seq only.
#pragma unroll
        for (int offset = 1; offset < 4; offset *= 2) {
            rows.sum0 += __shfl_xor_sync(0xffffffffu, rows.sum0, offset);
            rows.sum1 += __shfl_xor_sync(0xffffffffu, rows.sum1, offset);
        }
        const float inverse0 = 1.0f / rows.sum0, inverse1 = 1.0f / rows.sum1;
        if constexpr (S::kTmaStore) {
            // Through shared memory and one TMA store a box: 4-byte global stores, two rows
            // of a warp each, throttled the load/store queue (the profile's epilogue: ~4% of
            // the consumers' samples, on a stretch where the tensor cores have nothing queued).
            const bool leader = threadIdx.x % 128 == 0;
            if (leader) tma::wait_stores_read<0>();  // the previous item's boxes have been read
            wgmma::warpgroup_sync(3 + consumer);
            // Row r's 16-byte unit u of a box lies at r * 128 + (u ^ r % 8) * 16 (the 128-byte
            // swizzle); a warp's 32 stores of one j then hit 32 different banks.
            const int r0 = rows.row0 - rows.first_row - consumer * 64, r1 = r0 + 8;
#pragma unroll
            for (int j = 0; j < D / 8; ++j) {
                auto* box = reinterpret_cast<unsigned char*>(shared.out.o[consumer * kChunks + j / 8]);
                const int unit = j % 8, byte_in_unit = 2 * rows.column_in_pair;
                *reinterpret_cast<__nv_bfloat162*>(box + r0 * 128 + ((unit ^ (r0 % 8)) * 16) + byte_in_unit) =
                    __floats2bfloat162_rn(out[4 * j] * inverse0, out[4 * j + 1] * inverse0);
                *reinterpret_cast<__nv_bfloat162*>(box + r1 * 128 + ((unit ^ (r1 % 8)) * 16) + byte_in_unit) =
                    __floats2bfloat162_rn(out[4 * j + 2] * inverse1, out[4 * j + 3] * inverse1);
            }
            tma::fence_shared_to_async();  // this thread's writes, visible to the TMA unit
            wgmma::warpgroup_sync(3 + consumer);
            if (leader && rows.first_row + consumer * 64 < seq) {  // else every row is past the end
                for (int c = 0; c < kChunks; ++c)
                    store_box(&o_map, shared.out.o[consumer * kChunks + c], c * kChunk,
                              rows.first_row + consumer * 64, item.head);
                tma::commit_stores();
            }
        } else {
            __nv_bfloat16* out_head = o + std::size_t(item.head) * seq * D;
#pragma unroll
            for (int j = 0; j < D / 8; ++j) {
                const int col = 8 * j + rows.column_in_pair;
                if (rows.row0 < seq)
                    *reinterpret_cast<__nv_bfloat162*>(out_head + std::size_t(rows.row0) * D + col) =
                        __floats2bfloat162_rn(out[4 * j] * inverse0, out[4 * j + 1] * inverse0);
                if (rows.row1 < seq)
                    *reinterpret_cast<__nv_bfloat162*>(out_head + std::size_t(rows.row1) * D + col) =
                        __floats2bfloat162_rn(out[4 * j + 2] * inverse1, out[4 * j + 3] * inverse1);
            }
        }
    }
    if constexpr (S::kTmaStore)
        if (threadIdx.x % 128 == 0) tma::wait_stores<0>();  // the last boxes written before the block ends
}

template <int D, class S>
void launch_for(const __nv_bfloat16* q, const __nv_bfloat16* k, const __nv_bfloat16* v, __nv_bfloat16* o,
                int heads_total, int seq, bool causal, cudaStream_t stream) {
    const CUtensorMap q_map = make_head_map(q, heads_total, seq, D);
    const CUtensorMap k_map = make_head_map(k, heads_total, seq, D);
    const CUtensorMap v_map = make_head_map(v, heads_total, seq, D);
    const CUtensorMap o_map = S::kTmaStore ? make_head_map(o, heads_total, seq, D, 64) : CUtensorMap{};
    constexpr int shared_bytes = sizeof(SharedStorage<D, S::kStages, S::kTmaStore>) + 1024;  // + room to align to 1024
    static_assert(shared_bytes <= 227 * 1024, "more shared memory than an H100/H200 block may have");
    static const bool configured = [] {
        cudaFuncSetAttribute(attention_fa3<D, S>, cudaFuncAttributeMaxDynamicSharedMemorySize, shared_bytes);
        return true;
    }();
    (void)configured;
    const int items = heads_total * ((seq + kBlockQ - 1) / kBlockQ);
    const int blocks = S::kPersistent ? std::min(items, tma::multiprocessor_count()) : items;
    attention_fa3<D, S><<<blocks, kThreads, shared_bytes, stream>>>(q_map, k_map, v_map, o_map, o, heads_total, seq,
                                                                       causal);
}

template <class S>
void fa3_attention_launch_with(const __nv_bfloat16* q, const __nv_bfloat16* k, const __nv_bfloat16* v,
                               __nv_bfloat16* o, int batch, int heads, int seq, int head_dim, bool causal,
                               cudaStream_t stream) {
    if (head_dim == 64) launch_for<64, S>(q, k, v, o, batch * heads, seq, causal, stream);
    else launch_for<128, S>(q, k, v, o, batch * heads, seq, causal, stream);
}

void fa3_attention_launch(const __nv_bfloat16* q, const __nv_bfloat16* k, const __nv_bfloat16* v, __nv_bfloat16* o,
                          int batch, int heads, int seq, int head_dim, bool causal, cudaStream_t stream) {
    fa3_attention_launch_with<Chosen>(q, k, v, o, batch, heads, seq, head_dim, causal, stream);
}

}  // namespace

ROOFLINE_ATTENTION_VARIANT(warp_specialized, fa3_attention_launch);
ROOFLINE_ATTENTION_CAUSAL_VARIANT(warp_specialized_causal, fa3_attention_launch);
ROOFLINE_ATTENTION_VARIANT(warp_specialized_16k, fa3_attention_launch);
ROOFLINE_ATTENTION_CAUSAL_VARIANT(warp_specialized_causal_16k, fa3_attention_launch);
