// The gemm family (labs 03, 06, 07): C = A B, and C = A Bt^T with B given
// transposed (gemm_abt, for the TMA-fed tensor-core labs). The peer, cuBLAS,
// does the same work. Launch signatures: grader/include/roofline/gemm.cuh.
#include "model.hpp"
#include "problem_family.hpp"

namespace roofline::gemm {

namespace {

Workload gemm_at(const Shape& s, Dtype dtype) { return work_of(s.at("m"), s.at("n"), s.at("k"), dtype_bytes(dtype)); }

}  // namespace

ProblemFamily family() {
    return {.name = "gemm",
            .ops = {
                {.name = "gemm", .shape_keys = {"k", "m", "n"}, .dtypes = {Dtype::fp32, Dtype::bf16},
                 .work = gemm_at, .peer_work = gemm_at},
                {.name = "gemm_abt", .shape_keys = {"k", "m", "n"}, .dtypes = {Dtype::bf16},
                 .work = gemm_at, .peer_work = gemm_at},
            }};
}

}  // namespace roofline::gemm
