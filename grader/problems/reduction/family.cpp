// The reduction family (lab 06): row sums of a bf16 [rows][cols] array, in fp32.
// The peer, cudaMemcpy, moves as many bytes as the sums read. Launch signature:
// grader/include/roofline/contract/reduction.cuh.
#include "model.hpp"
#include "ops.hpp"
#include "problem_family.hpp"
#include "shape_keys.hpp"

namespace roofline::reduction {

ProblemFamily family() {
    return {.name = "reduction",
            .ops = {
                {.name = ops::row_sum, .shape_keys = sorted_keys(ops::rows_cols), .dtypes = {Dtype::bf16},
                 .work = [](const Shape& s, Dtype dtype) {
                     auto [rows, cols] = sizes_of(s, ops::rows_cols);
                     return row_sum_work(rows, cols, dtype_bytes(dtype));
                 },
                 .peer_work = [](const Shape& s, Dtype dtype) {
                     auto [rows, cols] = sizes_of(s, ops::rows_cols);
                     return row_sum_peer_work(rows, cols, dtype_bytes(dtype));
                 }},
            }};
}

}  // namespace roofline::reduction
