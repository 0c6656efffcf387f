// What the lab executable knows about one problem family (copy, GEMM, ...):
// how to make inputs, how to check a variant's output against a trusted
// reference, and what the peer is (cudaMemcpy, cuBLAS). The FLOP and byte
// model lives beside it (problems/NAME/model.hpp, through the family's
// descriptor family.cpp) and is used by the grader, not in here.
// One Problem object holds one variant's launch function.
#pragma once
#include "input_guard.cuh"
#include "verify.cuh"

#include <cuda_runtime.h>

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace roofline::harness {

using Shape = std::map<std::string, long long>;  // e.g. {n: 268435456} or {m, n, k}

// The sizes a problem family takes: `shape` must give each of `keys`, positive, and
// nothing else; `family` names it in the message ("gemm shapes", "row sums").
// Returns the sizes in the order of `keys`.
template <std::size_t N>
std::array<long long, N> shape_sizes(const Shape& shape, const std::array<const char*, N>& keys,
                                     const std::string& family) {
    std::string wanted;
    for (const char* key : keys) wanted += (wanted.empty() ? "" : ", ") + std::string(key);
    for (const auto& [key, value] : shape) {
        bool known = false;
        for (const char* k : keys) known = known || key == k;
        if (!known) throw std::invalid_argument(family + " take only " + wanted + "; got '" + key + "'");
    }
    std::array<long long, N> sizes{};
    for (std::size_t i = 0; i < N; ++i) {
        auto it = shape.find(keys[i]);
        if (it == shape.end() || it->second <= 0)
            throw std::invalid_argument(family + " need a positive '" + keys[i] + "' (they take " + wanted + ")");
        sizes[i] = it->second;
    }
    return sizes;
}

template <class T>
InputView input_view(const char* name, const DeviceArray<T>& array) {
    return {name, array.data(), array.size() * sizeof(T), sizeof(T)};
}

class Problem {
public:
    virtual ~Problem() = default;

    // Allocates for `shape`; throws std::invalid_argument with a readable message for a shape
    // the problem (or the variant's declared divisibility) cannot take.
    virtual void setup(const Shape& shape) = 0;
    // New inputs from `seed`, then the reference output computed from them, before any variant
    // runs: a judged timing checks every copy after every batch (lab_main.cpp, time_remotely),
    // so `verify` only compares, and always against the pristine inputs. The harness calls
    // this, never the two steps alone.
    void fill(std::uint64_t seed, cudaStream_t stream) {
        fill_inputs(seed, stream);
        compute_reference(stream);
    }
    virtual void fill_inputs(std::uint64_t seed, cudaStream_t stream) = 0;
    virtual void compute_reference(cudaStream_t stream) = 0;
    virtual void poison_outputs(cudaStream_t stream) = 0;
    virtual void launch_variant(cudaStream_t stream) = 0;
    virtual VerifyReport verify(const Tolerance& tolerance, cudaStream_t stream) = 0;

    // Every array the variant reads: checked unchanged after each launch (input_guard.cuh).
    virtual std::vector<InputView> inputs() const = 0;

    virtual std::string peer_name() const = 0;
    virtual void launch_peer(cudaStream_t stream) = 0;

    // A second library run shown beside the peer, never scored (lab 09: cuBLAS's GEMV beside
    // cudaMemcpy, the memory roof that is scored). Timed in the same interleaved run as the
    // variant and the peer. An empty name: none.
    virtual std::string also_measured_name() const { return {}; }
    virtual void launch_also_measured(cudaStream_t) {}
};

}  // namespace roofline::harness
