// The gemv family (lab 09): y = W x with W [N,K] row-major in bf16, int8 or fp8 (the op
// names the weights' format; x and y are bf16, the variant's dtype), and Y = X W^T for
// M rows of x; and decode_layer, one decoder layer at batch 1 built from them. Peers:
// cudaMemcpy of W's bytes for the single-row ops (with cuBLAS's GEMV shown beside it), cuBLAS
// for the batched one, cudaMemcpy of the layer's bytes for decode_layer. Launch signatures:
// grader/include/roofline/contract/gemv.cuh and decode_layer.cuh.
#include "model.hpp"
#include "ops.hpp"
#include "problem_family.hpp"
#include "shape_keys.hpp"

namespace roofline::gemv {

namespace {

bool batched(const std::string& op) { return op == ops::gemv_batched; }

// The sizes of a single-row op (m = 1) or of the batched one.
std::array<double, 3> mnk_of(const std::string& op, const Shape& s) {
    if (batched(op)) return sizes_of(s, ops::mnk);
    auto [n, k] = sizes_of(s, ops::nk);
    return {1.0, n, k};
}

ProblemOp op(const std::string& name) {
    auto work = [name](const Shape& s, Dtype) {
        auto [m, n, k] = mnk_of(name, s);
        return work_of(name, m, n, k);
    };
    WorkModel peer = work;  // cuBLAS does the same product
    WorkModel also;         // gemv_batched: cuBLAS is already the peer
    if (!batched(name)) {
        peer = [name](const Shape& s, Dtype) {
            auto [n, k] = sizes_of(s, ops::nk);
            return memcpy_peer_work(name, n, k);
        };
        // cuBLAS's GEMV on bf16 weights of the same shape: the library beside the memory roof for
        // gemv, the bf16 baseline whose bytes predict the quantized ops' speedup for the others.
        also = [](const Shape& s, Dtype) {
            auto [n, k] = sizes_of(s, ops::nk);
            return work_of(ops::gemv, 1, n, k);
        };
    }
    return {.name = name,
            .shape_keys = batched(name) ? sorted_keys(ops::mnk) : sorted_keys(ops::nk),
            .dtypes = {Dtype::bf16},
            .work = work,
            .peer_work = peer,
            .also_work = also};
}

// One decoder layer at batch 1 against cudaMemcpy moving the same bytes: the memory roof of
// the whole step, measured in the same run.
ProblemOp decode_layer() {
    auto work = [](const Shape& s, Dtype) {
        auto [hidden, heads, ffn, cache] = sizes_of(s, ops::layer);
        return decode_layer_work(hidden, heads, ffn, cache);
    };
    return {.name = ops::decode_layer,
            .shape_keys = sorted_keys(ops::layer),
            .dtypes = {Dtype::bf16},
            .work = work,
            .peer_work = [work](const Shape& s, Dtype d) { return Workload{0, work(s, d).bytes}; }};
}

}  // namespace

ProblemFamily family() {
    return {.name = "gemv",
            .ops = {op(ops::gemv), op(ops::gemv_batched), op(ops::gemv_int8), op(ops::gemv_fp8), decode_layer()}};
}

}  // namespace roofline::gemv
