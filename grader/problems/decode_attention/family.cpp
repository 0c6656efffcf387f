// The decode_attention family (lab 10): one new token per sequence attending to its KV cache,
// grouped-query (32 query heads, 8 KV heads of 128), bf16, each sequence its own length. The
// peer is cudaMemcpy moving the bytes the kernel must move. cuDNN's attention is not shown
// beside it: lab 08's cuDNN graph takes one sequence length for Q and K, the same head count
// for both, and no per-sequence lengths, and only lab 08's program links cuDNN.
// Launch signature: grader/include/roofline/contract/decode_attention.cuh.
#include "model.hpp"
#include "problem_family.hpp"

namespace roofline::decode_attention {

ProblemFamily family() {
    auto work = [](const Shape& s, Dtype) { return work_of(s.at("batch"), s.at("context"), s.at("shortest")); };
    auto peer = [](const Shape& s, Dtype) {
        return memcpy_peer_work(s.at("batch"), s.at("context"), s.at("shortest"));
    };
    return {.name = "decode_attention",
            .ops = {{.name = "decode_attention",
                     .shape_keys = {"batch", "context", "shortest"},
                     .dtypes = {Dtype::bf16},
                     .work = work,
                     .peer_work = peer}}};
}

}  // namespace roofline::decode_attention
