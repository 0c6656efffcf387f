// FLOP and byte model of attention's forward pass, O = softmax(Q K^T / sqrt(d)) V, per
// (batch, head) with Q, K, V, O each [seq, head_dim] in bf16.
//   FLOPs: Q K^T is seq x seq dot products of length d (2 n^2 d), P V the same again:
//          4 n^2 d per head. Causal masking leaves the lower triangle: half of it
//          (the diagonal's n d extra terms are ignored, as the FlashAttention papers do).
//          The softmax's exponentials and sums are O(n^2), not counted: a factor d fewer.
//   bytes (fused, the fewest): Q, K, V read once and O written once, 4 n d values.
//   bytes (scores materialized, lab 08's given three kernels): also the n x n fp32
//          scores written by Q K^T, read and written back by the softmax, read by P V:
//          four passes of 4 n^2 bytes. The given kernels touch the whole matrix, masked
//          or not, so causal attention moves the same score bytes.
#pragma once
#include "workload.hpp"

namespace roofline::attention {

inline constexpr double kScoreBytes = 4;     // the given naive kernels keep scores in fp32
inline constexpr double kScorePasses = 4;    // write S, read S, write P, read P

inline double flops_of(double batch, double heads, double seq, double head_dim, bool causal) {
    double full = 4 * seq * seq * head_dim * batch * heads;
    return causal ? full / 2 : full;
}

inline Workload work_of(double batch, double heads, double seq, double head_dim, bool causal, double elem_bytes) {
    return {flops_of(batch, heads, seq, head_dim, causal), 4 * batch * heads * seq * head_dim * elem_bytes};
}

// The bytes the n x n scores add when they go through memory: what fusion saves.
inline double score_matrix_bytes(double batch, double heads, double seq) {
    return kScorePasses * kScoreBytes * batch * heads * seq * seq;
}

inline Workload unfused_work_of(double batch, double heads, double seq, double head_dim, bool causal, double elem_bytes) {
    auto w = work_of(batch, heads, seq, head_dim, causal, elem_bytes);
    w.bytes += score_matrix_bytes(batch, heads, seq);
    return w;
}

}  // namespace roofline::attention
