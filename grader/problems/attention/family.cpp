// The attention family (lab 08): O = softmax(Q K^T / sqrt(d)) V, forward, bf16,
// plain and causal. The peer, cuDNN's fused attention, does the same work; the
// unfused line is the same attention with its seq x seq scores through memory.
// Launch signatures: grader/include/roofline/contract/attention.cuh.
#include "model.hpp"
#include "ops.hpp"
#include "problem_family.hpp"
#include "shape_keys.hpp"

namespace roofline::attention {

namespace {

Workload attention_at(const Shape& s, Dtype dtype, bool causal) {
    auto [batch, heads, seq, head_dim] = sizes_of(s, ops::sizes);
    return work_of(batch, heads, seq, head_dim, causal, dtype_bytes(dtype));
}

Workload scores_in_memory_at(const Shape& s, Dtype dtype, bool causal) {
    auto [batch, heads, seq, head_dim] = sizes_of(s, ops::sizes);
    return unfused_work_of(batch, heads, seq, head_dim, causal, dtype_bytes(dtype));
}

ProblemOp op(const char* name, bool causal) {
    auto work = [causal](const Shape& s, Dtype d) { return attention_at(s, d, causal); };
    return {.name = name, .shape_keys = sorted_keys(ops::sizes), .dtypes = {Dtype::bf16},
            .work = work, .peer_work = work,
            .unfused_work = [causal](const Shape& s, Dtype d) { return scores_in_memory_at(s, d, causal); }};
}

}  // namespace

ProblemFamily family() { return {.name = "attention", .ops = {op(ops::attention, false), op(ops::attention_causal, true)}}; }

}  // namespace roofline::attention
