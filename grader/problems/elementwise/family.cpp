// The elementwise family (labs 00 and 01): copy, scale, add and fma_chain over
// n elements. The peer, cudaMemcpy, copies one array. Launch signatures:
// grader/include/roofline/contract/elementwise.cuh.
#include "model.hpp"
#include "ops.hpp"
#include "problem_family.hpp"
#include "shape_keys.hpp"

namespace roofline::elementwise {

namespace {

// One op's model at a shape {n}, in the variant's dtype.
WorkModel over_n(Workload (*model)(double n, double element_bytes)) {
    return [model](const Shape& s, Dtype dtype) { return model(sizes_of(s, ops::n)[0], dtype_bytes(dtype)); };
}

}  // namespace

ProblemFamily family() {
    const std::vector<Dtype> fp32_or_bf16{Dtype::fp32, Dtype::bf16};
    return {.name = "elementwise",
            .ops = {
                {.name = ops::copy, .shape_keys = sorted_keys(ops::n), .dtypes = fp32_or_bf16, .work = over_n(copy_work),
                 .peer_work = over_n(peer_work)},
                {.name = ops::scale, .shape_keys = sorted_keys(ops::n), .dtypes = fp32_or_bf16, .work = over_n(scale_work),
                 .peer_work = over_n(peer_work)},
                {.name = ops::add, .shape_keys = sorted_keys(ops::n), .dtypes = fp32_or_bf16, .work = over_n(add_work),
                 .peer_work = over_n(peer_work)},
                {.name = ops::fma_chain, .shape_keys = sorted_keys(ops::n), .dtypes = {Dtype::fp32}, .work = over_n(fma_chain_work),
                 .peer_work = over_n(peer_work)},
            }};
}

}  // namespace roofline::elementwise
