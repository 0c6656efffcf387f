// The attention family (lab 08): O = softmax(Q K^T / sqrt(d)) V, forward, bf16,
// plain and causal. The peer, cuDNN's fused attention, does the same work; the
// unfused line is the same attention with its seq x seq scores through memory.
// Launch signatures: grader/include/roofline/attention.cuh.
#include "model.hpp"
#include "problem_family.hpp"

namespace roofline::attention {

namespace {

Workload attention_at(const Shape& s, Dtype dtype, bool causal) {
    return work_of(s.at("batch"), s.at("heads"), s.at("seq"), s.at("head_dim"), causal, dtype_bytes(dtype));
}

Workload scores_in_memory_at(const Shape& s, Dtype dtype, bool causal) {
    return unfused_work_of(s.at("batch"), s.at("heads"), s.at("seq"), s.at("head_dim"), causal, dtype_bytes(dtype));
}

ProblemOp op(const char* name, bool causal) {
    auto work = [causal](const Shape& s, Dtype d) { return attention_at(s, d, causal); };
    return {.name = name, .shape_keys = {"batch", "head_dim", "heads", "seq"}, .dtypes = {Dtype::bf16},
            .work = work, .peer_work = work,
            .unfused_work = [causal](const Shape& s, Dtype d) { return scores_in_memory_at(s, d, causal); }};
}

}  // namespace

ProblemFamily family() { return {.name = "attention", .ops = {op("attention", false), op("attention_causal", true)}}; }

}  // namespace roofline::attention
