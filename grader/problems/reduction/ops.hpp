// The reduction family's op names and shape keys, written once: the grader's descriptor
// (family.cpp) and the lab program's registration and shape check (reduction_problem.cu) read them, and lab.yaml's `op:` and `shape:` must spell them so.
#pragma once
#include <array>

namespace roofline::reduction::ops {

inline constexpr const char* row_sum = "row_sum";  // the fp32 sum of each row of x
// x[rows, cols], in the order the lab program reads them.
inline constexpr std::array<const char*, 2> rows_cols{"rows", "cols"};

}  // namespace roofline::reduction::ops
