// The transpose family's op names and shape keys, written once: the grader's descriptor
// (family.cpp) and the lab program's registration and shape check (transpose_problem.cu) read them, and lab.yaml's `op:` and `shape:` must spell them so.
#pragma once
#include <array>

namespace roofline::transpose::ops {

inline constexpr const char* transpose = "transpose";  // y[cols, rows] = x[rows, cols]^T
// x[rows, cols], in the order the lab program reads them.
inline constexpr std::array<const char*, 2> rows_cols{"rows", "cols"};

}  // namespace roofline::transpose::ops
