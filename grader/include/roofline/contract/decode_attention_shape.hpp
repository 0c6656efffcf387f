// The shapes of lab 10's decode attention (decode_attention.cuh), without CUDA, so that the
// grader's byte model (problems/decode_attention/model.hpp) and the lab program use the same
// numbers: the heads of Llama-3-8B and the rule that gives each sequence of a batch its length.
#pragma once

namespace roofline::decode_attention {

inline constexpr int kQueryHeads = 32;
inline constexpr int kKvHeads = 8;
inline constexpr int kGroup = kQueryHeads / kKvHeads;  // query heads that share one KV head: 4
inline constexpr int kHeadDim = 128;
// The most context splits the workspace has room for, per sequence and KV head.
inline constexpr int kMaxSplits = 128;
// One split's partial result for one query head: 128 unnormalized outputs, its max, its sum.
inline constexpr int kPartialFloats = kHeadDim + 2;

// The length of sequence b (0 <= b < batch) in a lab shape {batch, context, shortest}: the
// lengths fall evenly from `context` to `shortest` (shortest <= context), and the longest
// and the shortest alternate, so that the batch is not sorted: sequence 0 is the longest,
// sequence 1 the shortest, sequence 2 the second longest, ... With shortest == context
// (every timed shape) all sequences are `context` long.
inline long long sequence_length(long long b, long long batch, long long context, long long shortest) {
    if (batch <= 1 || shortest >= context) return context;
    const long long rank = b % 2 == 0 ? b / 2 : batch - 1 - b / 2;  // 0 = longest, batch - 1 = shortest
    const long long drop = ((context - shortest) * rank + (batch - 1) / 2) / (batch - 1);  // rounded
    return context - drop;
}

// The sum of the batch's lengths: the positions whose K and V a step must read.
inline long long total_positions(long long batch, long long context, long long shortest) {
    long long total = 0;
    for (long long b = 0; b < batch; ++b) total += sequence_length(b, batch, context, shortest);
    return total;
}

}  // namespace roofline::decode_attention
