// The transpose family (lab 05): y [cols][rows] = x [rows][cols]^T, no arithmetic.
// The peer, cudaMemcpy of x, moves the same bytes. Launch signature:
// grader/include/roofline/transpose.cuh.
#include "model.hpp"
#include "problem_family.hpp"

namespace roofline::transpose {

ProblemFamily family() {
    return {.name = "transpose",
            .ops = {
                {.name = "transpose", .shape_keys = {"cols", "rows"}, .dtypes = {Dtype::fp32, Dtype::bf16},
                 .work = [](const Shape& s, Dtype d) { return transpose_work(s.at("rows"), s.at("cols"), dtype_bytes(d)); },
                 .peer_work = [](const Shape& s, Dtype d) {
                     return transpose_peer_work(s.at("rows"), s.at("cols"), dtype_bytes(d));
                 }},
            }};
}

}  // namespace roofline::transpose
