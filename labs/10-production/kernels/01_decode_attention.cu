// Decode attention over the KV cache, split over the context (flash-decoding), grouped-query.
//                                                                  (your file: edit the TODOs)
// The contract is the first comment of roofline/contract/decode_attention.cuh: for each sequence b and
// query head h, out = softmax(q . K^T / sqrt(128)) V over the positions p < lengths[b] of KV
// head h / 4; q, K, V, out bf16, the softmax and the sums in fp32; the cache's rows past a
// sequence's length hold NaN.
//
// Why it is shaped like this (lessons/10-production.md, "Decode attention"):
// - It is a read of the cache and nothing else: 4 FLOPs per byte, far under the H200's ridge.
//   Full marks mean moving the cache's bytes at the rate cudaMemcpy moves them.
// - Read each KV head once for its 4 query heads. One block per query head would read every
//   K and V row 4 times (from L2 at best): the grouping is a 4x cut in bytes.
// - At batch 1 there are only 8 (sequence, KV head) pairs: 8 blocks on a 132-SM GPU move a
//   few percent of the bandwidth. Split each sequence's context into chunks so that the grid
//   fills every SM, then merge the chunks' softmaxes: in a second, small kernel (below), or in
//   the block of each pair that finishes last (a counter per pair; the lesson's "last block").
// - A full grid is not yet a busy memory: each SM must keep some 40 KB or more of loads in
//   flight (Little's law, lesson 01). Loads issued a few positions ahead of their use hold
//   their bytes in registers; bulk copies of whole K and V tiles into a ring in shared memory
//   (roofline/ptx/tma.cuh's load_1d, counted on an mbarrier) hold them in shared memory.
// - A softmax over a chunk can be merged with another if each chunk keeps its max m, its sum
//   l = sum exp(s - m) and its unnormalized output o = sum exp(s - m) v: rescale each by
//   exp(m - M) with M the largest max, add, and divide the outputs by the sums.
//
// Given (given/decode_attention_helpers.cuh): load8 and widen8 (8 bf16 in one 16-byte load, and
// as floats), fast_exp2, and plan_splits (how many chunks, how long), the lesson's arithmetic.
#include "roofline/contract/decode_attention.cuh"

#include "given/decode_attention_helpers.cuh"

namespace {

using roofline::decode_attention::softmax_scale;

constexpr int kBlocksPerSm = 2;  // what your split kernel's registers allow; plan_splits sizes the grid by it

// Block (split, KV head g, sequence b): positions [split * chunk, min(split * chunk + chunk, lengths[b])).
__global__ void split_kernel(const __nv_bfloat16* q, const __nv_bfloat16* k_cache, const __nv_bfloat16* v_cache,
                             const int* lengths, float* partial, int capacity, int chunk) {
    // TODO: a block whose first position is at or past lengths[b] has nothing to do: return.
    // TODO: load the 4 queries of group g (query heads 4g .. 4g+3) once, into registers, scaled by
    //       softmax_scale() (times log2(e) if you use fast_exp2 for exp).
    // TODO: read each position's K row and V row once (16-byte loads issued ahead of their use,
    //       or bulk copies of tiles into shared memory), enough of them in flight to cover the
    //       memory's latency, and for each of the 4 heads: the score, a running max m, the sum
    //       l of exp(s - m) and the output o += exp(s - m) v, rescaled when m grows. Offsets
    //       into the cache in 64 bits: at batch 64 and 32k it holds 2^31 elements per array.
    //       Never read a position at or past lengths[b]: those rows are NaN.
    // TODO: merge what the block's threads hold (shared memory) and write, for each of the 4
    //       heads, one record of kPartialFloats floats: o[0..127], m, l at
    //       partial + ((b * kQueryHeads + h) * kMaxSplits + split) * kPartialFloats.
    (void)q, (void)k_cache, (void)v_cache, (void)lengths, (void)partial, (void)capacity, (void)chunk;
}

// Block (query head h, sequence b): merge the splits that hold positions of sequence b.
__global__ void combine_kernel(const float* partial, const int* lengths, __nv_bfloat16* out, int chunk) {
    // TODO: the splits below ceil(lengths[b] / chunk) wrote records (the others never ran, and
    //       the workspace holds NaN there): their largest max M, then out[b][h][d] =
    //       sum_s exp(m_s - M) o_s[d] / sum_s exp(m_s - M) l_s, rounded to bf16.
    (void)partial, (void)lengths, (void)out, (void)chunk;
}

void decode_split_kv(const __nv_bfloat16* q, const __nv_bfloat16* k_cache, const __nv_bfloat16* v_cache,
                     const int* lengths, __nv_bfloat16* out, float* workspace, int batch, int capacity,
                     cudaStream_t stream) {
    // TODO: the plan (plan_splits: about two waves of kBlocksPerSm blocks per SM), then
    //       split_kernel on a grid of (plan.splits, kKvHeads, batch) and combine_kernel on
    //       (kQueryHeads, batch), both on `stream`.
    (void)q, (void)k_cache, (void)v_cache, (void)lengths, (void)out, (void)workspace, (void)batch, (void)capacity,
        (void)stream;
}

}  // namespace

ROOFLINE_DECODE_ATTENTION_VARIANT(decode_attention_b1_4k, decode_split_kv);
ROOFLINE_DECODE_ATTENTION_VARIANT(decode_attention_b1_32k, decode_split_kv);
ROOFLINE_DECODE_ATTENTION_VARIANT(decode_attention_b16_4k, decode_split_kv);
ROOFLINE_DECODE_ATTENTION_VARIANT(decode_attention_b16_32k, decode_split_kv);
ROOFLINE_DECODE_ATTENTION_VARIANT(decode_attention_b64_32k, decode_split_kv);
