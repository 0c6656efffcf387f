// Decode attention, split over the context (flash-decoding), grouped-query: the solution.
//
// Two kernels. The first, block (split, KV head g, sequence b), reads positions
// [split * chunk, min((split + 1) * chunk, lengths[b])) of K and V for head g once and
// serves all 4 query heads of the group from that one read. Its 16 lane groups of 8 lanes
// each take every 16th position: 8 lanes cover one 256-byte row of K (and of V) with two
// 16-byte loads each, and every lane holds the 4 heads' queries and outputs for its 16
// dimensions in registers. A position costs a lane 64 FMAs for the scores, a 3-step
// shuffle sum per head, and 64 FMAs for p v; each lane group keeps a running max and sum
// per head (the online softmax, rescaling only when the max grows). The 16 groups' states
// merge in shared memory and the block writes one partial per query head: 128 unnormalized
// outputs, the max and the sum (in log2 units: the queries are scaled by log2(e) / sqrt(128)).
// The second kernel, block (query head, sequence), merges the splits that hold positions.
// The K and V rows of the positions two steps ahead are loaded before the current ones are
// used, so each warp keeps up to 6 KB in flight; 207 registers (ptxas, sm_90), so 2 blocks
// (8 warps, ~48 KB in flight) per SM.
#include "roofline/contract/decode_attention.cuh"

#include "given/decode_attention_helpers.cuh"

namespace {

using roofline::decode_attention::softmax_scale;

constexpr int kWarps = 4;
constexpr int kThreads = kWarps * 32;
constexpr int kLanesPerRow = 8;                        // 8 lanes x 2 x 16 bytes = one 256-byte row
constexpr int kRowsPerWarp = 32 / kLanesPerRow;        // 4 positions per warp per step
constexpr int kStreams = kWarps * kRowsPerWarp;        // 16 lane groups, each its own positions
constexpr int kDims = 2 * 8;                           // a lane's dimensions: 8 in each half of the row
constexpr int kBlocksPerSm = 2;
static_assert(kThreads == kHeadDim, "the merge gives each thread one dimension");

struct Rows {  // one position's K and V pieces for one lane
    uint4 k0, k1, v0, v1;
};

__device__ inline Rows load_rows(const __nv_bfloat16* k_head, const __nv_bfloat16* v_head, int position, int sub) {
    const std::size_t at = std::size_t(position) * kHeadDim + sub * 8;
    return {load8(k_head + at), load8(k_head + at + kHeadDim / 2), load8(v_head + at), load8(v_head + at + kHeadDim / 2)};
}

__global__ __launch_bounds__(kThreads, kBlocksPerSm) void split_kernel(const __nv_bfloat16* q,
                                                                       const __nv_bfloat16* k_cache,
                                                                       const __nv_bfloat16* v_cache,
                                                                       const int* lengths, float* partial,
                                                                       int capacity, int chunk) {
    __shared__ float merge_o[kStreams][kGroup][kHeadDim];  // 32 KiB
    __shared__ float merge_m[kStreams][kGroup], merge_l[kStreams][kGroup];

    const int split = blockIdx.x, g = blockIdx.y, b = blockIdx.z;
    const int length = lengths[b];
    const int first = split * chunk;
    if (first >= length) return;  // nothing here: the combine reads only splits below length / chunk
    const int end = min(first + chunk, length);

    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int row = lane / kLanesPerRow, sub = lane % kLanesPerRow;
    const int stream = warp * kRowsPerWarp + row;

    // The group's 4 queries at this lane's dimensions (sub*8 .. +7 and 64 + sub*8 .. +7), scaled
    // so that a score is in log2 units: exp(s / sqrt(d)) = 2^(s * log2(e) / sqrt(d)).
    const float q_scale = softmax_scale() * 1.4426950408889634f;
    float qf[kGroup][kDims];
#pragma unroll
    for (int j = 0; j < kGroup; ++j) {
        const __nv_bfloat16* q_row = q + (std::size_t(b) * kQueryHeads + g * kGroup + j) * kHeadDim + sub * 8;
        widen8(load8(q_row), qf[j]);
        widen8(load8(q_row + kHeadDim / 2), qf[j] + 8);
#pragma unroll
        for (int i = 0; i < kDims; ++i) qf[j][i] *= q_scale;
    }

    float o[kGroup][kDims], m[kGroup], l[kGroup];
#pragma unroll
    for (int j = 0; j < kGroup; ++j) {
        m[j] = -INFINITY, l[j] = 0;
#pragma unroll
        for (int i = 0; i < kDims; ++i) o[j][i] = 0;
    }

    const std::size_t head = (std::size_t(b) * kKvHeads + g) * capacity * kHeadDim;  // 64-bit: 2^31 elements at b64/32k
    const __nv_bfloat16* k_head = k_cache + head;
    const __nv_bfloat16* v_head = v_cache + head;

    // The warp steps together (its shuffles need every lane); a row past `end` loads nothing
    // and changes nothing, so no position at or past lengths[b] is ever read.
    const int warp_first = first + warp * kRowsPerWarp;
    Rows now{}, next{};
    if (warp_first + row < end) now = load_rows(k_head, v_head, warp_first + row, sub);
    if (warp_first + row + kStreams < end) next = load_rows(k_head, v_head, warp_first + row + kStreams, sub);
    for (int base = warp_first; base < end; base += kStreams) {
        const int p = base + row;
        Rows later{};  // two steps ahead: three positions' rows in flight per lane group
        if (p + 2 * kStreams < end) later = load_rows(k_head, v_head, p + 2 * kStreams, sub);

        float kf[kDims];
        widen8(now.k0, kf);
        widen8(now.k1, kf + 8);
        float s[kGroup];
#pragma unroll
        for (int j = 0; j < kGroup; ++j) {
            s[j] = 0;
#pragma unroll
            for (int i = 0; i < kDims; ++i) s[j] = fmaf(qf[j][i], kf[i], s[j]);
        }
#pragma unroll
        for (int j = 0; j < kGroup; ++j) {  // the row's 8 lanes are aligned: xor 1, 2, 4 stays inside
#pragma unroll
            for (int offset = 1; offset < kLanesPerRow; offset *= 2) s[j] += __shfl_xor_sync(0xffffffffu, s[j], offset);
        }
        if (p < end) {
            float vf[kDims];
            widen8(now.v0, vf);
            widen8(now.v1, vf + 8);
#pragma unroll
            for (int j = 0; j < kGroup; ++j) {
                if (s[j] > m[j]) {  // a new max: rescale what is summed so far (rare after the first few)
                    const float c = fast_exp2(m[j] - s[j]);
                    l[j] *= c;
#pragma unroll
                    for (int i = 0; i < kDims; ++i) o[j][i] *= c;
                    m[j] = s[j];
                }
                const float w = fast_exp2(s[j] - m[j]);
                l[j] += w;
#pragma unroll
                for (int i = 0; i < kDims; ++i) o[j][i] = fmaf(w, vf[i], o[j][i]);
            }
        }
        now = next;
        next = later;
    }

    // Merge the 16 lane groups: each writes its state, thread d merges dimension d of each head.
#pragma unroll
    for (int j = 0; j < kGroup; ++j) {
#pragma unroll
        for (int i = 0; i < 8; ++i) {
            merge_o[stream][j][sub * 8 + i] = o[j][i];
            merge_o[stream][j][kHeadDim / 2 + sub * 8 + i] = o[j][8 + i];
        }
        if (sub == 0) merge_m[stream][j] = m[j], merge_l[stream][j] = l[j];
    }
    __syncthreads();
    const int d = threadIdx.x;
#pragma unroll
    for (int j = 0; j < kGroup; ++j) {
        float top = -INFINITY;
        for (int t = 0; t < kStreams; ++t) top = fmaxf(top, merge_m[t][j]);  // finite: stream 0 has `first`
        float sum = 0, acc = 0;
        for (int t = 0; t < kStreams; ++t) {
            if (merge_m[t][j] == -INFINITY) continue;  // a lane group with no position
            const float w = fast_exp2(merge_m[t][j] - top);
            sum = fmaf(merge_l[t][j], w, sum);
            acc = fmaf(merge_o[t][j][d], w, acc);
        }
        float* record = partial + ((std::size_t(b) * kQueryHeads + g * kGroup + j) * kMaxSplits + split) * kPartialFloats;
        record[d] = acc;
        if (d == 0) record[kHeadDim] = top, record[kHeadDim + 1] = sum;
    }
}

// Block (query head h, sequence b), thread d: out = sum_s 2^(m_s - M) o_s / sum_s 2^(m_s - M) l_s.
__global__ __launch_bounds__(kHeadDim) void combine_kernel(const float* partial, const int* lengths,
                                                           __nv_bfloat16* out, int chunk) {
    const int h = blockIdx.x, b = blockIdx.y, d = threadIdx.x;
    const int splits = (lengths[b] + chunk - 1) / chunk;  // every one of them holds positions
    const float* records = partial + (std::size_t(b) * kQueryHeads + h) * kMaxSplits * kPartialFloats;
    float top = -INFINITY;
    for (int s = 0; s < splits; ++s) top = fmaxf(top, records[s * kPartialFloats + kHeadDim]);
    float sum = 0, acc = 0;
    for (int s = 0; s < splits; ++s) {
        const float* r = records + s * kPartialFloats;
        const float w = fast_exp2(r[kHeadDim] - top);
        sum = fmaf(r[kHeadDim + 1], w, sum);
        acc = fmaf(r[d], w, acc);
    }
    out[(std::size_t(b) * kQueryHeads + h) * kHeadDim + d] = __float2bfloat16(acc / sum);
}

void decode_split_kv(const __nv_bfloat16* q, const __nv_bfloat16* k_cache, const __nv_bfloat16* v_cache,
                     const int* lengths, __nv_bfloat16* out, float* workspace, int batch, int capacity,
                     cudaStream_t stream) {
    // Two waves of two resident blocks per SM: the lesson's split count.
    const SplitPlan plan = plan_splits(batch, capacity, sm_count(), kBlocksPerSm, 2);
    split_kernel<<<dim3(plan.splits, kKvHeads, batch), kThreads, 0, stream>>>(q, k_cache, v_cache, lengths, workspace,
                                                                             capacity, plan.chunk);
    combine_kernel<<<dim3(kQueryHeads, batch), kHeadDim, 0, stream>>>(workspace, lengths, out, plan.chunk);
}

}  // namespace

ROOFLINE_DECODE_ATTENTION_VARIANT(decode_attention_b1_4k, decode_split_kv);
ROOFLINE_DECODE_ATTENTION_VARIANT(decode_attention_b1_32k, decode_split_kv);
ROOFLINE_DECODE_ATTENTION_VARIANT(decode_attention_b16_4k, decode_split_kv);
ROOFLINE_DECODE_ATTENTION_VARIANT(decode_attention_b16_32k, decode_split_kv);
ROOFLINE_DECODE_ATTENTION_VARIANT(decode_attention_b64_32k, decode_split_kv);
