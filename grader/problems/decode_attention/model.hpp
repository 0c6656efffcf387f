// FLOP and byte model of lab 10's decode attention (grader/include/roofline/contract/decode_attention.cuh):
// one new token per sequence, 32 query heads sharing 8 KV heads of 128, bf16.
//   FLOPs: per query head and cached position, q . k (128 multiply-adds) and p v (128 more):
//          4 x 128 FLOPs, times 32 query heads, times the batch's positions P = sum of lengths.
//          The softmax's exponentials and sums are left out (a factor 128 fewer).
//   bytes (the fewest): every position's K and V row of every KV head read once,
//          2 x P x 8 x 128 x 2 bytes; q read and out written (batch x 32 x 128 bf16 each);
//          the lengths (4 bytes per sequence). Reading K and V once per *KV* head, not once
//          per query head, is what grouped-query attention buys: 4 FLOPs per byte, where
//          32 independent heads would read 4 times the bytes for the same FLOPs.
// Peer: cudaMemcpy device to device of half of those bytes, so that its reads plus writes are
//   the bytes the kernel must move: the memory roof measured in the same run.
#pragma once
#include "roofline/contract/decode_attention_shape.hpp"
#include "workload.hpp"

namespace roofline::decode_attention {

inline double cache_bytes(double positions) { return 2.0 * positions * kKvHeads * kHeadDim * 2; }

inline Workload work_of(double batch, double context, double shortest) {
    const double positions = double(total_positions((long long)batch, (long long)context, (long long)shortest));
    const double q_and_out = 2.0 * batch * kQueryHeads * kHeadDim * 2;
    return {4.0 * kQueryHeads * kHeadDim * positions, cache_bytes(positions) + q_and_out + 4 * batch};
}

// cudaMemcpy moving the same bytes (reads plus writes).
inline Workload memcpy_peer_work(double batch, double context, double shortest) {
    return {0, work_of(batch, context, shortest).bytes};
}

}  // namespace roofline::decode_attention
