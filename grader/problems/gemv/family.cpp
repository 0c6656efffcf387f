// The gemv family (lab 09): y = W x with W [N,K] row-major in bf16, int8 or fp8 (the op
// names the weights' format; x and y are bf16, the variant's dtype), and Y = X W^T for
// M rows of x; and decode_layer, one decoder layer at batch 1 built from them. Peers:
// cudaMemcpy of W's bytes for the single-row ops (with cuBLAS's GEMV shown beside it), cuBLAS
// for the batched one, cudaMemcpy of the layer's bytes for decode_layer. Launch signatures:
// grader/include/roofline/gemv.cuh and decode_layer.cuh.
#include "model.hpp"
#include "problem_family.hpp"

namespace roofline::gemv {

namespace {

double rows_of_x(const std::string& op, const Shape& s) { return op == "gemv_batched" ? double(s.at("m")) : 1.0; }

ProblemOp op(const std::string& name) {
    auto work = [name](const Shape& s, Dtype) { return work_of(name, rows_of_x(name, s), s.at("n"), s.at("k")); };
    WorkModel peer = work;  // cuBLAS does the same product
    WorkModel also;         // gemv_batched: cuBLAS is already the peer
    if (name != "gemv_batched") {
        peer = [name](const Shape& s, Dtype) { return memcpy_peer_work(name, s.at("n"), s.at("k")); };
        // cuBLAS's GEMV on bf16 weights of the same shape: the library beside the memory roof for
        // gemv, the bf16 baseline whose bytes predict the quantized ops' speedup for the others.
        also = [](const Shape& s, Dtype) { return work_of("gemv", 1, s.at("n"), s.at("k")); };
    }
    return {.name = name,
            .shape_keys = name == "gemv_batched" ? std::vector<std::string>{"k", "m", "n"}
                                                 : std::vector<std::string>{"k", "n"},
            .dtypes = {Dtype::bf16},
            .work = work,
            .peer_work = peer,
            .also_work = also};
}

// One decoder layer at batch 1 against cudaMemcpy moving the same bytes: the memory roof of
// the whole step, measured in the same run.
ProblemOp decode_layer() {
    auto work = [](const Shape& s, Dtype) {
        return decode_layer_work(s.at("hidden"), s.at("heads"), s.at("ffn"), s.at("cache"));
    };
    return {.name = "decode_layer",
            .shape_keys = {"cache", "ffn", "heads", "hidden"},
            .dtypes = {Dtype::bf16},
            .work = work,
            .peer_work = [work](const Shape& s, Dtype d) { return Workload{0, work(s, d).bytes}; }};
}

}  // namespace

ProblemFamily family() {
    return {.name = "gemv",
            .ops = {op("gemv"), op("gemv_batched"), op("gemv_int8"), op("gemv_fp8"), decode_layer()}};
}

}  // namespace roofline::gemv
