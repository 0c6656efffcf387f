// The gemv family (lab 08): y = W x with W [N,K] row-major in bf16, int8 or fp8 (the op
// names the weights' format; x and y are bf16, the variant's dtype), and Y = X W^T for
// M rows of x. Peers: cudaMemcpy of W's bytes for the single-row ops, cuBLAS for the
// batched one. Launch signatures: grader/include/roofline/gemv.cuh.
#include "model.hpp"
#include "problem_family.hpp"

namespace roofline::gemv {

namespace {

double rows_of_x(const std::string& op, const Shape& s) { return op == "gemv_batched" ? double(s.at("m")) : 1.0; }

ProblemOp op(const std::string& name) {
    auto work = [name](const Shape& s, Dtype) { return work_of(name, rows_of_x(name, s), s.at("n"), s.at("k")); };
    WorkModel peer = work;  // cuBLAS does the same product
    if (name != "gemv_batched")
        peer = [name](const Shape& s, Dtype) { return memcpy_peer_work(name, s.at("n"), s.at("k")); };
    return {.name = name,
            .shape_keys = name == "gemv_batched" ? std::vector<std::string>{"k", "m", "n"}
                                                 : std::vector<std::string>{"k", "n"},
            .dtypes = {Dtype::bf16},
            .work = work,
            .peer_work = peer};
}

}  // namespace

ProblemFamily family() {
    return {.name = "gemv", .ops = {op("gemv"), op("gemv_batched"), op("gemv_int8"), op("gemv_fp8")}};
}

}  // namespace roofline::gemv
