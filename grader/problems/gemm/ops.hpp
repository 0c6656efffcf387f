// The gemm family's op names and shape keys, written once: the grader's descriptor
// (family.cpp) and the lab program's registration and shape check (gemm_problem.cu) read them,
// and lab.yaml's `op:` and `shape:` must spell them so.
#pragma once
#include <array>

namespace roofline::gemm::ops {

inline constexpr const char* gemm = "gemm";          // C = A B
inline constexpr const char* gemm_abt = "gemm_abt";  // C = A Bt^T, B given transposed
inline constexpr const char* gemm_fp8 = "gemm_fp8";    // C = sa sb A Bt^T, e4m3 A and Bt, bf16 C
inline constexpr const char* gemm_fp8_block_scaled = "gemm_fp8_block_scaled";  // 1x128 / 128x128 scales
// C[m,n] = A[m,k] B[k,n]: the sizes of both ops, in the order the lab program reads them.
inline constexpr std::array<const char*, 3> mnk{"m", "n", "k"};

}  // namespace roofline::gemm::ops
