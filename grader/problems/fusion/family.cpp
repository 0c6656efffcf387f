// The fusion family (lab 04): an elementwise chain, RMSNorm and a GEMM with a
// bias + GELU epilogue (and the bare GEMM it is compared with), each with the
// work of the unfused version it replaces, so that the report can show the
// bytes fusion saved. Peers: cudaMemcpy of x for chain and rmsnorm, cuBLASLt
// doing the same work for the GEMMs; beside gemm_bias_gelu, the given three
// kernels are timed too (not scored), for the fused/unfused ratio. Launch signatures:
// grader/include/roofline/contract/fusion.cuh.
#include "model.hpp"
#include "ops.hpp"
#include "problem_family.hpp"
#include "shape_keys.hpp"

namespace roofline::fusion {

namespace {

using OverN = Workload (*)(double n, double element_bytes);
using OverRows = Workload (*)(double rows, double cols, double element_bytes);
using OverMnk = Workload (*)(double m, double n, double k, double element_bytes);

WorkModel at(OverN model) {
    return [model](const Shape& s, Dtype dtype) { return model(sizes_of(s, ops::n)[0], dtype_bytes(dtype)); };
}
WorkModel at(OverRows model) {
    return [model](const Shape& s, Dtype dtype) {
        auto [rows, cols] = sizes_of(s, ops::rows_cols);
        return model(rows, cols, dtype_bytes(dtype));
    };
}
WorkModel at(OverMnk model) {
    return [model](const Shape& s, Dtype dtype) {
        auto [m, n, k] = sizes_of(s, ops::mnk);
        return model(m, n, k, dtype_bytes(dtype));
    };
}

}  // namespace

ProblemFamily family() {
    const std::vector<Dtype> bf16{Dtype::bf16};
    return {.name = "fusion",
            .ops = {
                {.name = ops::chain, .shape_keys = sorted_keys(ops::n), .dtypes = bf16, .work = at(chain_work),
                 .peer_work = at(chain_peer_work), .unfused_work = at(chain_unfused_work)},
                {.name = ops::rmsnorm, .shape_keys = sorted_keys(ops::rows_cols), .dtypes = bf16, .work = at(rmsnorm_work),
                 .peer_work = at(rmsnorm_peer_work), .unfused_work = at(rmsnorm_unfused_work)},
                {.name = ops::gemm_bare, .shape_keys = sorted_keys(ops::mnk), .dtypes = bf16, .work = at(gemm_bare_work),
                 .peer_work = at(gemm_bare_work)},
                {.name = ops::gemm_bias_gelu, .shape_keys = sorted_keys(ops::mnk), .dtypes = bf16, .work = at(gemm_bias_gelu_work),
                 .peer_work = at(gemm_bias_gelu_work), .unfused_work = at(gemm_bias_gelu_unfused_work),
                 .also_work = at(gemm_bias_gelu_unfused_work)},  // the given three kernels, timed beside it
            }};
}

}  // namespace roofline::fusion
