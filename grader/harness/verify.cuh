// Fresh random inputs, NaN-poisoned outputs, and an element-by-element
// comparison against a trusted reference, all on the device so that a
// gigabyte-sized check takes milliseconds. Student code never includes this.
#pragma once
#include "device_buffer.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace roofline::harness {

struct Tolerance {
    double atol = 0;        // per element: |got - ref| <= atol + rtol * |ref|
    double rtol = 0;
    double max_rel_l2 = 0;  // ||got - ref|| / ||ref|| over the whole output
};

struct Mismatch {
    long long index = 0;
    double expected = 0;
    double got = 0;
    bool unwritten = false;  // still holds the poison pattern
};

struct VerifyReport {
    bool passed = false;
    std::string verdict;  // one line: what went wrong, or "correct"
    long long elements = 0;
    long long mismatches = 0;  // elements outside the per-element tolerance (includes the two below)
    long long unwritten = 0;   // still the poison NaN: the kernel never wrote them
    long long nonfinite = 0;   // NaN or Inf the kernel wrote
    long long guard_bytes_damaged = 0;  // writes past either end of the output
    double rel_l2 = 0;
    double max_abs_error = 0;
    std::vector<Mismatch> first_mismatches;  // lowest indices found, at most 8
};

// Uniform values in [lo, hi) from a counter-based hash of (seed, index):
// the same seed gives the same data on any GPU, a new seed all-new data.
template <class T>
void fill_random(T* data, std::size_t count, std::uint64_t seed, float lo, float hi, cudaStream_t stream);

// A NaN with a payload no arithmetic produces, so "never written" is told apart from "computed NaN".
template <class T>
void poison(T* data, std::size_t count, cudaStream_t stream);

// Compares every element of `got` with `ref`; `got_storage` supplies the guard regions.
template <class T, class R>
VerifyReport compare(const T* got, const R* ref, std::size_t count, const DeviceBytes& got_storage,
                     const Tolerance& tolerance, cudaStream_t stream);

}  // namespace roofline::harness
