// The gemm family (labs 03, 06, 07): C = A B, and C = A Bt^T with B given
// transposed (gemm_abt, for the TMA-fed tensor-core labs); lab 06's FP8 rungs
// (gemm_fp8, gemm_fp8_block_scaled: e4m3 in, bf16 out). The peer, cuBLAS or
// cuBLASLt, does the same work. Launch signatures: grader/include/roofline/contract/gemm.cuh.
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
Workload fp8_at(const Shape& s, Dtype) {
    auto [m, n, k] = sizes_of(s, ops::mnk);
    return fp8_work_of(m, n, k, false);
}
Workload fp8_block_scaled_at(const Shape& s, Dtype) {
    auto [m, n, k] = sizes_of(s, ops::mnk);
    return fp8_work_of(m, n, k, true);
}

}  // namespace

ProblemFamily family() {
    return {.name = "gemm",
            .ops = {
                {.name = ops::gemm, .shape_keys = sorted_keys(ops::mnk), .dtypes = {Dtype::fp32, Dtype::bf16},
                 .work = gemm_at, .peer_work = gemm_at},
                {.name = ops::gemm_abt, .shape_keys = sorted_keys(ops::mnk), .dtypes = {Dtype::bf16},
                 .work = gemm_at, .peer_work = gemm_at},
                {.name = ops::gemm_fp8, .shape_keys = sorted_keys(ops::mnk), .dtypes = {Dtype::fp8},
                 .work = fp8_at, .peer_work = fp8_at},
                {.name = ops::gemm_fp8_block_scaled, .shape_keys = sorted_keys(ops::mnk), .dtypes = {Dtype::fp8},
                 .work = fp8_block_scaled_at, .peer_work = fp8_block_scaled_at},
            }};
}

}  // namespace roofline::gemm
