// Decode attention, split over the context (flash-decoding), grouped-query: our design, shared
// by the guided rung's solution (kernels/01_decode_attention.cu) and the open rung's reference
// (kernels/02_open_decode_attention.cu); each file registers it under its own names.
//
// One kernel, block (split, KV head g, sequence b), positions [split * chunk, min(split * chunk
// + chunk, lengths[b])) of KV head g, served to the group's 4 query heads from one read:
//
// - The bytes in flight. A memory-bound kernel must keep bandwidth x latency in flight: about
//   4.3 TB/s x ~1 us under load, ~33 KB per SM at the least, more to cover the latency's
//   spread. A thread's own loads put a few KB per warp in flight and cost registers; here one
//   thread asks the SM's TMA unit for whole tiles instead (cp.async.bulk: kTile positions of K,
//   then of V, each a contiguous run of 256-byte rows), into a ring of kStages tiles in shared
//   memory: kStages x kTile x 512 bytes, 96 KB by default, all of it requested before the
//   first position is computed, and refilled as soon as the block's warps have left a tile.
//   A copy stops at the sequence's length, so no row past it is ever read.
// - The arithmetic, from shared memory, in one of two forms (DECODE_ATTENTION_MMA):
//   1, the tensor cores (decode_attention_mma.cuh): each warp scores 16 positions for the
//   group's 4 heads in m16n8k16 mma instructions and sums their weighted value rows the same way;
//   0, lane groups: kLanesPerRow lanes each take one position at a time; a lane holds the group's
//   4 queries (scaled by log2(e) / sqrt(128), so each exponential is one ex2) and its 4 running
//   outputs at its 128 / kLanesPerRow dimensions, in registers; a score is a partial dot product
//   and a shuffle sum inside the lane group. Either way each warp or lane group keeps its own
//   running max and sum per head (the online softmax, rescaling only when the max grows), and at
//   the end they merge in shared memory. The lane groups issue ~50 instructions a position, and
//   under ncu they kept DRAM at 67% of its peak at batch 1 / 32k (53% with an e4m3 cache): the
//   SM's issue, not the bytes, set the pace.
// - The split: about one wave of resident blocks on the GPU (plan_splits with kWaves): 32
//   splits at batch 1, 2 at batch 16, 1 at batch 64. With the whole ring in flight per block
//   a wave's tail costs little: the blocks still running keep the bytes coming.
// - The merge, in the same kernel. A sequence with one split writes `out` at once. Otherwise
//   each block writes its partial (4 x 128 unnormalized outputs, 4 maxima and sums) to the
//   workspace and counts itself on its (sequence, KV head)'s arrival counter; the block that
//   arrives last merges the splits' partials (out = sum_s 2^(m_s - M) o_s / sum_s 2^(m_s - M)
//   l_s, in one pass over the records, online) and sets the counter back to zero for the next
//   launch. No second launch, and no wait for the slowest pair before the others merge. The
//   counters are this file's own device memory, zero when the program loads; the workspace holds
//   NaN on a verified launch, so every record is written before it is read.
// - What a launch costs whatever its length: at batch 1 about 9 us (a fit over 256 to 32k
//   positions), of which the launch itself is ~1.7 us and the rest a chain of round trips to
//   memory each block waits on in turn: the length, the first tiles, its record and a fence, the
//   arrival count, the last block's reads of the records. Loads that do not depend on each other
//   are issued together (the queries with the length; a split's max and sum with its outputs).
//
// The same kernel serves module 10's decode server (solutions/10-production/server/
// fast_attention.cu), through the template below: its queries sit in [q | k | v] rows (a stride
// per sequence), it counts positions rather than lengths (a bias of one), and its cache may hold
// e4m3 bytes with a scale per KV head (`kv_cache: fp8`): a row is then 128 bytes, a tile holds
// twice the positions for the same bytes in flight, a lane widens 16 e4m3 values from one 16-byte
// piece, the keys' scale is folded into the queries and the values' into the outputs.
//
// The knobs are compile-time (scripts/device/decode_attention_sweep.sh rebuilds the solution
// with -D to compare them): DECODE_ATTENTION_WARPS, DECODE_ATTENTION_LANES_PER_ROW (8 or 16),
// DECODE_ATTENTION_TILE (positions a stage), DECODE_ATTENTION_STAGES, DECODE_ATTENTION_WAVES,
// DECODE_ATTENTION_MMA.
// The defaults are the sweep's fastest at every graded shape (2026-12-02): tiles of 64 positions
// in 3 stages, the same 96 KiB of ring as 32 in 6, in half as many copies and barrier waits.
#pragma once
#include "roofline/contract/decode_attention.cuh"
#include "roofline/ptx/mbarrier.cuh"
#include "roofline/ptx/tma.cuh"

#include "given/decode_attention_helpers.cuh"
#include "decode_attention_mma.cuh"

#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>

#ifndef DECODE_ATTENTION_WARPS
#define DECODE_ATTENTION_WARPS 4
#endif
#ifndef DECODE_ATTENTION_LANES_PER_ROW
#define DECODE_ATTENTION_LANES_PER_ROW 8
#endif
#ifndef DECODE_ATTENTION_TILE
#define DECODE_ATTENTION_TILE 64
#endif
#ifndef DECODE_ATTENTION_STAGES
#define DECODE_ATTENTION_STAGES 3
#endif
#ifndef DECODE_ATTENTION_WAVES
#define DECODE_ATTENTION_WAVES 1
#endif
#ifndef DECODE_ATTENTION_MMA
#define DECODE_ATTENTION_MMA 1
#endif

namespace {
namespace ring {

namespace mbarrier = roofline::mbarrier;
namespace tma = roofline::tma;
using roofline::decode_attention::softmax_scale;

constexpr int kWarps = DECODE_ATTENTION_WARPS;
constexpr int kThreads = kWarps * 32;
constexpr int kLanesPerRow = DECODE_ATTENTION_LANES_PER_ROW;  // lanes that share one position
constexpr int kRowsPerWarp = 32 / kLanesPerRow;
constexpr int kLaneGroups = kWarps * kRowsPerWarp;              // positions the block works on at once
constexpr int kStages = DECODE_ATTENTION_STAGES;
constexpr int kWaves = DECODE_ATTENTION_WAVES;
constexpr bool kTensorCores = DECODE_ATTENTION_MMA != 0;        // the arithmetic on mma (see below) or lane groups
constexpr int kOutputs = kGroup * kHeadDim;                     // a block's outputs: 4 heads x 128

// What a cache element sets: a row's bytes, and so a lane's 16-byte pieces of it and their
// dimensions (bf16: two pieces of 8 at 8 lanes a row; e4m3: one piece of 16), and the tile.
template <class Element>
struct Layout {
    static constexpr int kRowBytes = kHeadDim * int(sizeof(Element));
    static constexpr int kPiecesPerLane = kRowBytes / (16 * kLanesPerRow);  // 16-byte pieces of a row per lane
    static constexpr int kDimsPerPiece = 16 / int(sizeof(Element));
    static constexpr int kDims = kPiecesPerLane * kDimsPerPiece;             // a lane's dimensions
    // Positions a stage holds: DECODE_ATTENTION_TILE rows of bf16, the same bytes of e4m3.
    static constexpr int kTile = DECODE_ATTENTION_TILE * 2 / int(sizeof(Element));
    static constexpr int kStageBytes = 2 * kTile * kRowBytes;  // the tile's K rows, then its V rows
    static constexpr int kRingBytes = kStages * kStageBytes;
    static constexpr int kMergeBytes = kLaneGroups * kGroup * kHeadDim * 4;  // the lane groups' outputs, at the end
    static constexpr int kSmemBytes = kRingBytes > kMergeBytes ? kRingBytes : kMergeBytes;
    static_assert(kPiecesPerLane >= 1, "a lane holds at least one 16-byte piece of a row (e4m3: 8 lanes a row)");
    static_assert(kTile % 8 == 0, "a tile of a multiple of 8 positions");
    // Dimension i of lane `sub`'s kDims: piece i / kDimsPerPiece, at (sub + piece x lanes) pieces into the row.
    __device__ static int dim(int sub, int piece) { return (sub + piece * kLanesPerRow) * kDimsPerPiece; }
};
// Blocks an SM should hold (__launch_bounds__ caps the registers to match): two, but for 8
// warps of 8-lane groups, whose queries and outputs alone take 128 registers a thread.
#ifdef DECODE_ATTENTION_MIN_BLOCKS
constexpr int kMinBlocksPerSm = DECODE_ATTENTION_MIN_BLOCKS;
#else
constexpr int kMinBlocksPerSm = kThreads <= 128 || kLanesPerRow == 16 ? 2 : 1;
#endif
// Sequences a launch takes: the arrival counters' room (the host splits a larger batch).
constexpr int kBatchPerLaunch = 2048;

static_assert(kLanesPerRow == 8 || kLanesPerRow == 16, "a lane holds one or two 16-byte pieces of a row");
static_assert(kOutputs % kThreads == 0 && kThreads % 128 == 0, "the merges split 512 outputs evenly");
static_assert(kStages >= 2, "a ring of at least two tiles");

// Who the launch serves. The lab's contract: queries contiguous ([batch][32][128]), lengths.
// The decode server: queries in its [q | k | v] rows (q_stride elements apart), positions
// (a sequence holds positions[b] + 1), and its cache in bf16 or e4m3 with per-head scales.
struct Sequences {
    const __nv_bfloat16* q = nullptr;
    int q_stride = kQueryHeads * kHeadDim;  // elements from one sequence's queries to the next's
    const int* lengths = nullptr;
    int length_bias = 0;                    // a sequence holds lengths[b] + length_bias positions
};
template <class Element>
struct Cache {
    const Element* k = nullptr;
    const Element* v = nullptr;
    const float* k_scales = nullptr;  // e4m3 only: [kKvHeads], a stored byte x means x * scale
    const float* v_scales = nullptr;
};

// A lane's 16-byte piece of a row as floats: eight bf16, or sixteen e4m3 bytes.
__device__ inline void widen_piece(const uint4& piece, float* f, const __nv_bfloat16*) { widen8(piece, f); }
__device__ inline void widen_piece(const uint4& piece, float* f, const std::uint8_t*) {
    const __nv_fp8x2_storage_t* pairs = reinterpret_cast<const __nv_fp8x2_storage_t*>(&piece);
#pragma unroll
    for (int i = 0; i < 8; ++i) {
        const float2 two = __half22float2(__half2(__nv_cvt_fp8x2_to_halfraw2(pairs[i], __NV_E4M3)));
        f[2 * i] = two.x, f[2 * i + 1] = two.y;
    }
}

// One arrival counter per (sequence, KV head) of a launch; zero at load, and the last block of
// each pair sets its counter back to zero, so every launch finds them at zero.
__device__ unsigned int arrivals[kBatchPerLaunch * kKvHeads];

// The workspace: the splits' unnormalized outputs, [sequence][query head][split][128], then
// their maxima and sums, [sequence][query head][split][2]: decode_attention_workspace_floats.
__device__ inline float* output_record(float* workspace, int b, int h, int split) {
    return workspace + ((std::size_t(b) * kQueryHeads + h) * kMaxSplits + split) * kHeadDim;
}
__device__ inline float* max_sum_record(float* workspace, int batch, int b, int h, int split) {
    return workspace + std::size_t(batch) * kQueryHeads * kMaxSplits * kHeadDim +
           ((std::size_t(b) * kQueryHeads + h) * kMaxSplits + split) * 2;
}

__device__ inline uint4 load_shared16(const void* at) { return *reinterpret_cast<const uint4*>(at); }

// One partial (max, sum, 4 outputs) folded into a running one, the online softmax's step:
// whichever max is larger rescales the other side. `other_top` is finite (a split held a position).
__device__ inline void fold_partial(float& top, float& sum, float4& acc, float other_top, float other_sum, float4 other) {
    const float grown = fmaxf(top, other_top);
    const float kept = fast_exp2(top - grown), w = fast_exp2(other_top - grown);  // kept: 0 while top is -inf
    sum = fmaf(other_sum, w, sum * kept);
    acc.x = fmaf(w, other.x, acc.x * kept), acc.y = fmaf(w, other.y, acc.y * kept);
    acc.z = fmaf(w, other.z, acc.z * kept), acc.w = fmaf(w, other.w, acc.w * kept);
    top = grown;
}

// The lane-group arithmetic (DECODE_ATTENTION_MMA=0): lane groups of kLanesPerRow lanes each take
// one position at a time, from shared memory; each group is one partial of the block's merge.
template <class Element>
struct LaneGroups {
    using L = Layout<Element>;
    static constexpr int kGroups = kLaneGroups;
    static constexpr int kDims = L::kDims;
    int row, sub;                                  // the lane's position in its warp: group, lane of the group
    float qf[kGroup][kDims], o[kGroup][kDims], m[kGroup], l[kGroup];

    // The group's 4 queries at this lane's dimensions, scaled (queries: row h at queries + h x 128).
    __device__ void start(const __nv_bfloat16* queries, float q_scale) {
        const int lane = threadIdx.x % 32;
        row = lane / kLanesPerRow, sub = lane % kLanesPerRow;
#pragma unroll
        for (int j = 0; j < kGroup; ++j) {
#pragma unroll
            for (int c = 0; c < L::kPiecesPerLane; ++c)
#pragma unroll
                for (int e = 0; e < L::kDimsPerPiece; e += 8)
                    widen8(load8(queries + j * kHeadDim + L::dim(sub, c) + e), qf[j] + c * L::kDimsPerPiece + e);
#pragma unroll
            for (int i = 0; i < kDims; ++i) qf[j][i] *= q_scale;
        }
#pragma unroll
        for (int j = 0; j < kGroup; ++j) {
            m[j] = -INFINITY, l[j] = 0;
#pragma unroll
            for (int i = 0; i < kDims; ++i) o[j][i] = 0;
        }
    }

    __device__ void consume(const Element* k_tile, const Element* v_tile, int rows) {
        const int warp = threadIdx.x / 32;
        // The warp steps together (its shuffles need every lane); a lane group past the tile's
        // rows reads nothing (the stage holds an older tile's rows there, or nothing).
        for (int base = warp * kRowsPerWarp; base < rows; base += kLaneGroups) {
            const int r = base + row;
            const bool here = r < rows;
            float kf[kDims];
#pragma unroll
            for (int c = 0; c < L::kPiecesPerLane; ++c) {
                const uint4 piece = here ? load_shared16(k_tile + r * kHeadDim + L::dim(sub, c)) : make_uint4(0, 0, 0, 0);
                widen_piece(piece, kf + c * L::kDimsPerPiece, k_tile);
            }
            float s[kGroup];
#pragma unroll
            for (int j = 0; j < kGroup; ++j) {
                s[j] = 0;
#pragma unroll
                for (int i = 0; i < kDims; ++i) s[j] = fmaf(qf[j][i], kf[i], s[j]);
            }
#pragma unroll
            for (int j = 0; j < kGroup; ++j) {  // the lane group's lanes are aligned: xor stays inside it
#pragma unroll
                for (int offset = 1; offset < kLanesPerRow; offset *= 2) s[j] += __shfl_xor_sync(0xffffffffu, s[j], offset);
            }
            if (here) {
                float vf[kDims];
#pragma unroll
                for (int c = 0; c < L::kPiecesPerLane; ++c)
                    widen_piece(load_shared16(v_tile + r * kHeadDim + L::dim(sub, c)), vf + c * L::kDimsPerPiece, v_tile);
#pragma unroll
                for (int j = 0; j < kGroup; ++j) {
                    if (s[j] > m[j]) {  // a new max: rescale what is summed so far (rare after the first few)
                        const float scale = fast_exp2(m[j] - s[j]);
                        l[j] *= scale;
#pragma unroll
                        for (int i = 0; i < kDims; ++i) o[j][i] *= scale;
                        m[j] = s[j];
                    }
                    const float w = fast_exp2(s[j] - m[j]);
                    l[j] += w;
#pragma unroll
                    for (int i = 0; i < kDims; ++i) o[j][i] = fmaf(w, vf[i], o[j][i]);
                }
            }
        }
    }

    // This lane group's partial into the block's merge: group_out[group][head][128], its max and sum.
    __device__ void store(float* group_out, float (*group_max)[kGroup], float (*group_sum)[kGroup]) const {
        const int group = (threadIdx.x / 32) * kRowsPerWarp + row;
#pragma unroll
        for (int j = 0; j < kGroup; ++j) {
#pragma unroll
            for (int c = 0; c < L::kPiecesPerLane; ++c) {  // a piece's floats, in 16-byte stores
                float4* at = reinterpret_cast<float4*>(group_out + (group * kGroup + j) * kHeadDim + L::dim(sub, c));
                const float* from = o[j] + c * L::kDimsPerPiece;
#pragma unroll
                for (int e = 0; e < L::kDimsPerPiece / 4; ++e)
                    at[e] = make_float4(from[4 * e], from[4 * e + 1], from[4 * e + 2], from[4 * e + 3]);
            }
            if (sub == 0) group_max[group][j] = m[j], group_sum[group][j] = l[j];
        }
    }
};

template <class Element>
using TileMath = std::conditional_t<kTensorCores, ring_mma::WarpTensorCores<Element, kWarps>, LaneGroups<Element>>;

template <class Element>
__global__ __launch_bounds__(kThreads, kMinBlocksPerSm) void attend_kernel(Sequences sequences, Cache<Element> cache,
                                                                           __nv_bfloat16* out, float* workspace,
                                                                           int capacity, int chunk) {
    using L = Layout<Element>;
    using Math = TileMath<Element>;
    constexpr int kTile = L::kTile, kRowBytes = L::kRowBytes, kStageBytes = L::kStageBytes;
    constexpr int kGroups = Math::kGroups;  // partials the block merges at the end
    static_assert(!kTensorCores || kTile % 16 == 0, "a warp reads 16 positions at a time: tiles of a multiple of 16");
    extern __shared__ __align__(128) unsigned char smem[];
    __shared__ __align__(8) std::uint64_t full[kStages], empty[kStages];
    __shared__ float group_max[kGroups][kGroup], group_sum[kGroups][kGroup];
    __shared__ int arrived_last;

    const int split = blockIdx.x, g = blockIdx.y, b = blockIdx.z, batch = gridDim.z;
    // The group's 4 queries (an e4m3 cache's key scale folded into their scale) asked for before
    // the sequence's length, which decides everything after it: the two loads' round trips overlap.
    const float q_scale = softmax_scale() * 1.4426950408889634f * (cache.k_scales ? cache.k_scales[g] : 1.0f);
    Math math;
    math.start(sequences.q + std::size_t(b) * sequences.q_stride + g * kGroup * kHeadDim, q_scale);
    const int length = sequences.lengths[b] + sequences.length_bias;
    const int first = split * chunk;
    if (first >= length) return;  // past this sequence's end: no positions, no record, no arrival
    const int count = min(chunk, length - first);
    const int splits = (length + chunk - 1) / chunk;  // the pair's blocks that hold positions
    const int tiles = (count + kTile - 1) / kTile;

    const int tid = threadIdx.x, lane = tid % 32;

    // 64-bit offsets: at batch 64 and 32k each cache holds 2^31 elements.
    const std::size_t head = ((std::size_t(b) * kKvHeads + g) * std::size_t(capacity) + first) * kHeadDim;
    const Element* k_rows = cache.k + head;
    const Element* v_rows = cache.v + head;
    auto stage_k = [&](int stage) { return reinterpret_cast<Element*>(smem + stage * kStageBytes); };
    auto stage_v = [&](int stage) { return reinterpret_cast<Element*>(smem + stage * kStageBytes + kTile * kRowBytes); };
    auto rows_of = [&](int tile) { return min(kTile, count - tile * kTile); };
    auto request = [&](int tile) {  // one thread: the tile's K rows and V rows, counted on full[stage]
        const int stage = tile % kStages;
        const std::uint32_t bytes = std::uint32_t(rows_of(tile)) * kRowBytes;
        const std::size_t at = std::size_t(tile) * kTile * kHeadDim;
        mbarrier::arrive_expect_tx(&full[stage], 2 * bytes);
        tma::load_1d(stage_k(stage), k_rows + at, bytes, &full[stage]);
        tma::load_1d(stage_v(stage), v_rows + at, bytes, &full[stage]);
    };

    if (tid == 0) {
        for (int s = 0; s < kStages; ++s) {
            mbarrier::init(&full[s], 1);
            mbarrier::init(&empty[s], kWarps);  // each warp's lane 0 arrives when the warp leaves the tile
        }
        mbarrier::fence_init();
        for (int t = 0; t < min(kStages, tiles); ++t) request(t);  // the whole ring in flight at once
    }

    __syncthreads();  // the barriers are initialised

    for (int t = 0; t < tiles; ++t) {
        // Refill the stage the block left last time, once every warp has left it: one tile of
        // slack, so that the fastest warp seldom waits for the slowest.
        if (tid == 0 && t >= 1 && t - 1 + kStages < tiles) {
            mbarrier::wait(&empty[(t - 1) % kStages], ((t - 1) / kStages) & 1);
            request(t - 1 + kStages);
        }
        const int stage = t % kStages;
        mbarrier::wait(&full[stage], (t / kStages) & 1);
        math.consume(stage_k(stage), stage_v(stage), rows_of(t));
        __syncwarp();
        if (lane == 0) mbarrier::arrive(&empty[stage]);
    }

    // Merge the partials in shared memory (the ring's bytes: every tile has been read).
    __syncthreads();
    float* group_out = reinterpret_cast<float*>(smem);  // [partial][head][128]
    math.store(group_out, group_max, group_sum);
    __syncthreads();
    const bool alone = splits == 1;
    const float v_scale = cache.v_scales ? cache.v_scales[g] : 1.0f;  // an e4m3 cache's value scale
#pragma unroll
    for (int k = 0; k < kOutputs / kThreads; ++k) {
        const int index = tid + k * kThreads, j = index / kHeadDim, d = index % kHeadDim;
        const int h = g * kGroup + j;
        float top = -INFINITY;
        for (int t = 0; t < kGroups; ++t) top = fmaxf(top, group_max[t][j]);  // finite: a group had `first`
        float sum = 0, acc = 0;
        for (int t = 0; t < kGroups; ++t) {
            const float w = fast_exp2(group_max[t][j] - top);  // 0 for a group with no position (-inf)
            sum = fmaf(group_sum[t][j], w, sum);
            acc = fmaf(group_out[(t * kGroup + j) * kHeadDim + d], w, acc);
        }
        acc *= v_scale;
        if (alone) {
            out[(std::size_t(b) * kQueryHeads + h) * kHeadDim + d] = __float2bfloat16(acc / sum);
        } else {
            output_record(workspace, b, h, split)[d] = acc;
            if (d == 0) {
                float* record = max_sum_record(workspace, batch, b, h, split);
                record[0] = top, record[1] = sum;
            }
        }
    }
    if (alone) return;

    // Count this split in; the last of the pair's splits merges them all.
    __threadfence();  // this block's records before its arrival, for whichever block is last
    __syncthreads();
    unsigned int* counter = &arrivals[std::size_t(b) * kKvHeads + g];
    if (tid == 0) {
        const bool last = atomicAdd(counter, 1u) == unsigned(splits - 1);
        if (last) atomicExch(counter, 0u);  // every split has arrived: ready for the next launch
        arrived_last = last;
    }
    __syncthreads();
    if (!arrived_last) return;
    __threadfence();  // the other splits' records, after their arrivals

    // One pass over the splits' records, merged online as the block's own partials were: each
    // thread 4 outputs of one head, a split's max and sum read beside its outputs (L2: __ldcg,
    // never a stale L1 line), so every load is independent of the others and of the merge's
    // arithmetic: 8 in flight a thread, one or two round trips to L2 where a pass for the maxima
    // and then one for the outputs took two or more. With more than 128 threads the splits are
    // shared out and the parts merged in shared memory.
    constexpr int kParts = kThreads / 128;
    const int slot = tid % 128, part = tid / 128, j = slot / 32, d = (slot % 32) * 4;
    const int h = g * kGroup + j;
    float top = -INFINITY, sum = 0;
    float4 acc = make_float4(0, 0, 0, 0);
#pragma unroll 8
    for (int s = part; s < splits; s += kParts) {
        const float4 piece = __ldcg(reinterpret_cast<const float4*>(output_record(workspace, b, h, s) + d));
        const float2 max_sum = __ldcg(reinterpret_cast<const float2*>(max_sum_record(workspace, batch, b, h, s)));
        fold_partial(top, sum, acc, max_sum.x, max_sum.y, piece);
    }
    if constexpr (kParts > 1) {
        struct Partial {
            float4 acc;
            float top, sum;
        };
        Partial* parts = reinterpret_cast<Partial*>(smem);  // the partials' outputs are read: free
        __syncthreads();
        if (part > 0) parts[(part - 1) * 128 + slot] = Partial{acc, top, sum};
        __syncthreads();
        if (part > 0) return;
        for (int p = 1; p < kParts; ++p) {
            const Partial other = parts[(p - 1) * 128 + slot];
            if (other.top == -INFINITY) continue;  // a part with no split (fewer splits than parts)
            fold_partial(top, sum, acc, other.top, other.sum, other.acc);
        }
    }
    const float inverse = 1.0f / sum;
    __nv_bfloat162* target = reinterpret_cast<__nv_bfloat162*>(out + (std::size_t(b) * kQueryHeads + h) * kHeadDim + d);
    target[0] = __floats2bfloat162_rn(acc.x * inverse, acc.y * inverse);
    target[1] = __floats2bfloat162_rn(acc.z * inverse, acc.w * inverse);
}

// Resident blocks per SM at the layout's shared memory, asked once per device (the attribute that
// lets a block have more than 48 KB is set on the way).
template <class Element>
int blocks_per_sm() {
    static int cached_device = -1, cached = 1;
    int device = 0;
    cudaGetDevice(&device);
    if (device != cached_device) {
        constexpr int bytes = Layout<Element>::kSmemBytes;
        cudaFuncSetAttribute(attend_kernel<Element>, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes);
        int blocks = 0;
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, attend_kernel<Element>, kThreads, bytes);
        cached = blocks > 0 ? blocks : 1;
        cached_device = device;
    }
    return cached;
}

// `capacity`: positions each sequence's cache holds (its stride); `workspace`: at least
// decode_attention_workspace_floats(batch) floats.
template <class Element>
void attend(const Sequences& sequences, const Cache<Element>& cache, __nv_bfloat16* out, float* workspace, int batch,
            int capacity, cudaStream_t stream) {
    const int resident = blocks_per_sm<Element>();
    for (int b0 = 0; b0 < batch; b0 += kBatchPerLaunch) {  // one launch for any batch the lab times
        const int part = std::min(kBatchPerLaunch, batch - b0);
        const SplitPlan plan = plan_splits(part, capacity, sm_count(), resident, kWaves);
        const std::size_t cache_at = std::size_t(b0) * kKvHeads * capacity * kHeadDim;
        Sequences some = sequences;
        some.q += std::size_t(b0) * sequences.q_stride;
        some.lengths += b0;
        Cache<Element> rows = cache;
        rows.k += cache_at, rows.v += cache_at;
        attend_kernel<Element><<<dim3(plan.splits, kKvHeads, part), kThreads, Layout<Element>::kSmemBytes, stream>>>(
            some, rows, out + std::size_t(b0) * kQueryHeads * kHeadDim,
            workspace + roofline::decode_attention::decode_attention_workspace_floats(b0), capacity, plan.chunk);
    }
}

// The lab's contract (roofline/contract/decode_attention.cuh).
void decode_attention(const __nv_bfloat16* q, const __nv_bfloat16* k_cache, const __nv_bfloat16* v_cache,
                      const int* lengths, __nv_bfloat16* out, float* workspace, int batch, int capacity,
                      cudaStream_t stream) {
    Sequences sequences;
    sequences.q = q, sequences.lengths = lengths;
    Cache<__nv_bfloat16> cache;
    cache.k = k_cache, cache.v = v_cache;
    attend(sequences, cache, out, workspace, batch, capacity, stream);
}

}  // namespace ring
}  // namespace
