// FLOP and byte model of the elementwise problems: each input element read
// once, each output element written once; one FLOP per element for scale and
// add, none for copy, and 2 x kFmaChainSteps for fma_chain. The peer,
// cudaMemcpy, reads and writes one array. `roofline calc --elementwise` counts
// with the same formula (work_of).
#pragma once
#include "roofline/contract/fma_chain.hpp"
#include "workload.hpp"

namespace roofline::elementwise {

// n elements, each reading `reads` and writing `writes` values `element_bytes` wide,
// with `flops_per_element` FLOPs.
inline Workload work_of(double n, double reads, double writes, double flops_per_element, double element_bytes) {
    return {n * flops_per_element, n * (reads + writes) * element_bytes};
}

inline Workload copy_work(double n, double element_bytes) { return work_of(n, 1, 1, 0, element_bytes); }
inline Workload scale_work(double n, double element_bytes) { return work_of(n, 1, 1, 1, element_bytes); }
inline Workload add_work(double n, double element_bytes) { return work_of(n, 2, 1, 1, element_bytes); }
inline Workload fma_chain_work(double n, double element_bytes) {
    return work_of(n, 1, 1, 2.0 * kFmaChainSteps, element_bytes);  // an FMA is two FLOPs
}

// cudaMemcpy of one n-element array: a read and a write of each element.
inline Workload peer_work(double n, double element_bytes) { return copy_work(n, element_bytes); }

}  // namespace roofline::elementwise
