// The reduction family (lab 06): row sums of a bf16 [rows][cols] array, in fp32.
// The peer, cudaMemcpy, moves as many bytes as the sums read. Launch signature:
// grader/include/roofline/reduction.cuh.
#include "model.hpp"
#include "problem_family.hpp"

namespace roofline::reduction {

ProblemFamily family() {
    return {.name = "reduction",
            .ops = {
                {.name = "row_sum", .shape_keys = {"cols", "rows"}, .dtypes = {Dtype::bf16},
                 .work = [](const Shape& s, Dtype dtype) { return row_sum_work(s.at("rows"), s.at("cols"), dtype_bytes(dtype)); },
                 .peer_work = [](const Shape& s, Dtype dtype) {
                     return row_sum_peer_work(s.at("rows"), s.at("cols"), dtype_bytes(dtype));
                 }},
            }};
}

}  // namespace roofline::reduction
