// The gemm family (labs 03, 06, 07): C = A B, and C = A Bt^T with B given
// transposed (gemm_abt, for the TMA-fed tensor-core labs). The peer, cuBLAS,
// does the same work. Launch signatures: grader/include/roofline/contract/gemm.cuh.
#include "model.hpp"
#include "ops.hpp"
#include "problem_family.hpp"
#include "shape_keys.hpp"

namespace roofline::gemm {

namespace {

Workload gemm_at(const Shape& s, Dtype dtype) {
    auto [m, n, k] = sizes_of(s, ops::mnk);
    return work_of(m, n, k, dtype_bytes(dtype));
}

}  // namespace

ProblemFamily family() {
    return {.name = "gemm",
            .ops = {
                {.name = ops::gemm, .shape_keys = sorted_keys(ops::mnk), .dtypes = {Dtype::fp32, Dtype::bf16},
                 .work = gemm_at, .peer_work = gemm_at},
                {.name = ops::gemm_abt, .shape_keys = sorted_keys(ops::mnk), .dtypes = {Dtype::bf16},
                 .work = gemm_at, .peer_work = gemm_at},
            }};
}

}  // namespace roofline::gemm
