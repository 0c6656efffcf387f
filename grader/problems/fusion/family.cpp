// The fusion family (lab 04): an elementwise chain, RMSNorm and a GEMM with a
// bias + GELU epilogue (and the bare GEMM it is compared with), each with the
// work of the unfused version it replaces, so that the report can show the
// bytes fusion saved. Peers: cudaMemcpy of x for chain and rmsnorm, cuBLASLt
// doing the same work for the GEMMs; beside gemm_bias_gelu, the given three
// kernels are timed too (not scored), for the fused/unfused ratio. Launch signatures:
// grader/include/roofline/fusion.cuh.
#include "model.hpp"
#include "problem_family.hpp"

namespace roofline::fusion {

namespace {

using OverN = Workload (*)(double n, double element_bytes);
using OverRows = Workload (*)(double rows, double cols, double element_bytes);
using OverMnk = Workload (*)(double m, double n, double k, double element_bytes);

WorkModel at(OverN model) {
    return [model](const Shape& s, Dtype dtype) { return model(s.at("n"), dtype_bytes(dtype)); };
}
WorkModel at(OverRows model) {
    return [model](const Shape& s, Dtype dtype) { return model(s.at("rows"), s.at("cols"), dtype_bytes(dtype)); };
}
WorkModel at(OverMnk model) {
    return [model](const Shape& s, Dtype dtype) { return model(s.at("m"), s.at("n"), s.at("k"), dtype_bytes(dtype)); };
}

}  // namespace

ProblemFamily family() {
    const std::vector<Dtype> bf16{Dtype::bf16};
    const std::vector<std::string> mnk{"k", "m", "n"};
    return {.name = "fusion",
            .ops = {
                {.name = "chain", .shape_keys = {"n"}, .dtypes = bf16, .work = at(chain_work),
                 .peer_work = at(chain_peer_work), .unfused_work = at(chain_unfused_work)},
                {.name = "rmsnorm", .shape_keys = {"cols", "rows"}, .dtypes = bf16, .work = at(rmsnorm_work),
                 .peer_work = at(rmsnorm_peer_work), .unfused_work = at(rmsnorm_unfused_work)},
                {.name = "gemm_bare", .shape_keys = mnk, .dtypes = bf16, .work = at(gemm_bare_work),
                 .peer_work = at(gemm_bare_work)},
                {.name = "gemm_bias_gelu", .shape_keys = mnk, .dtypes = bf16, .work = at(gemm_bias_gelu_work),
                 .peer_work = at(gemm_bias_gelu_work), .unfused_work = at(gemm_bias_gelu_unfused_work),
                 .also_work = at(gemm_bias_gelu_unfused_work)},  // the given three kernels, timed beside it
            }};
}

}  // namespace roofline::fusion
