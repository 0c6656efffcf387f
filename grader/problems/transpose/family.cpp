// The transpose family (lab 05): y [cols][rows] = x [rows][cols]^T, no arithmetic.
// The peer, cudaMemcpy of x, moves the same bytes. Launch signature:
// grader/include/roofline/contract/transpose.cuh.
#include "model.hpp"
#include "ops.hpp"
#include "problem_family.hpp"
#include "shape_keys.hpp"

namespace roofline::transpose {

ProblemFamily family() {
    return {.name = "transpose",
            .ops = {
                {.name = ops::transpose, .shape_keys = sorted_keys(ops::rows_cols), .dtypes = {Dtype::fp32, Dtype::bf16},
                 .work = [](const Shape& s, Dtype d) {
                     auto [rows, cols] = sizes_of(s, ops::rows_cols);
                     return transpose_work(rows, cols, dtype_bytes(d));
                 },
                 .peer_work = [](const Shape& s, Dtype d) {
                     auto [rows, cols] = sizes_of(s, ops::rows_cols);
                     return transpose_peer_work(rows, cols, dtype_bytes(d));
                 }},
            }};
}

}  // namespace roofline::transpose
