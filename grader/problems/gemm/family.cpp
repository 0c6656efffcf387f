// The gemm family (labs 03, 06, 07): C = A B, and C = A Bt^T with B given
// transposed (gemm_abt, for the TMA-fed tensor-core labs); lab 06's FP8 rungs
// (gemm_fp8, gemm_fp8_block_scaled: e4m3 in, bf16 out). The peer, cuBLAS or
// cuBLASLt, does the same work. Launch signatures: grader/include/roofline/gemm.cuh.
#include "model.hpp"
#include "problem_family.hpp"

namespace roofline::gemm {

namespace {

Workload gemm_at(const Shape& s, Dtype dtype) { return work_of(s.at("m"), s.at("n"), s.at("k"), dtype_bytes(dtype)); }
Workload fp8_at(const Shape& s, Dtype) { return fp8_work_of(s.at("m"), s.at("n"), s.at("k"), false); }
Workload fp8_block_scaled_at(const Shape& s, Dtype) { return fp8_work_of(s.at("m"), s.at("n"), s.at("k"), true); }

}  // namespace

ProblemFamily family() {
    return {.name = "gemm",
            .ops = {
                {.name = "gemm", .shape_keys = {"k", "m", "n"}, .dtypes = {Dtype::fp32, Dtype::bf16},
                 .work = gemm_at, .peer_work = gemm_at},
                {.name = "gemm_abt", .shape_keys = {"k", "m", "n"}, .dtypes = {Dtype::bf16},
                 .work = gemm_at, .peer_work = gemm_at},
                {.name = "gemm_fp8", .shape_keys = {"k", "m", "n"}, .dtypes = {Dtype::fp8},
                 .work = fp8_at, .peer_work = fp8_at},
                {.name = "gemm_fp8_block_scaled", .shape_keys = {"k", "m", "n"}, .dtypes = {Dtype::fp8},
                 .work = fp8_block_scaled_at, .peer_work = fp8_block_scaled_at},
            }};
}

}  // namespace roofline::gemm
