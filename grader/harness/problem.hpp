// What the lab executable knows about one problem family (copy, GEMM, ...):
// how to make inputs, how to check a variant's output against a trusted
// reference, and what the peer is (cudaMemcpy, cuBLAS). The FLOP and byte
// model lives beside it (model.hpp) and is used by the grader, not in here.
// One Problem object holds one variant's launch function.
#pragma once
#include "verify.cuh"

#include <cuda_runtime.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace roofline::harness {

using Shape = std::map<std::string, long long>;  // e.g. {n: 268435456} or {m, n, k}

class Problem {
public:
    virtual ~Problem() = default;

    // Allocates for `shape`; throws std::invalid_argument with a readable message for a shape
    // the problem (or the variant's declared divisibility) cannot take.
    virtual void setup(const Shape& shape) = 0;
    virtual void fill_inputs(std::uint64_t seed, cudaStream_t stream) = 0;
    virtual void poison_outputs(cudaStream_t stream) = 0;
    virtual void launch_variant(cudaStream_t stream) = 0;
    virtual VerifyReport verify(const Tolerance& tolerance, cudaStream_t stream) = 0;

    virtual std::string peer_name() const = 0;
    virtual void launch_peer(cudaStream_t stream) = 0;
};

}  // namespace roofline::harness
