// The fusion family's op names and shape keys, written once: the grader's descriptor
// (family.cpp) and the lab program's registration and shape checks (fusion_problem.cu,
// gemm_epilogue_problem.cu) read them, and lab.yaml's `op:` and `shape:` must spell them so.
#pragma once
#include <array>

namespace roofline::fusion::ops {

inline constexpr const char* chain = "chain";                    // the elementwise chain on x
inline constexpr const char* rmsnorm = "rmsnorm";                // RMSNorm of each row
inline constexpr const char* gemm_bare = "gemm_bare";            // Y = A B
inline constexpr const char* gemm_bias_gelu = "gemm_bias_gelu";  // Y = gelu(A B + bias)
// The sizes, in the order the lab program reads them: chain's element count, rmsnorm's
// matrix, the GEMMs' Y[m,n] = A[m,k] B[k,n].
inline constexpr std::array<const char*, 1> n{"n"};
inline constexpr std::array<const char*, 2> rows_cols{"rows", "cols"};
inline constexpr std::array<const char*, 3> mnk{"m", "n", "k"};

}  // namespace roofline::fusion::ops
