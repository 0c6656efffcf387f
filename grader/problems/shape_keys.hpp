// For the families' descriptors (problems/*/family.cpp): an op's shape keys and sizes from the
// family's ops.hpp, where each family writes them once.
#pragma once
#include "problem_family.hpp"

#include <algorithm>
#include <array>
#include <string>
#include <vector>

namespace roofline {

// An op's shape keys as ProblemOp holds them, sorted, from its family's ops.hpp, which lists
// them in the order the lab program reads the sizes.
template <std::size_t N>
std::vector<std::string> sorted_keys(const std::array<const char*, N>& keys) {
    std::vector<std::string> sorted(keys.begin(), keys.end());
    std::sort(sorted.begin(), sorted.end());
    return sorted;
}

// The sizes `keys` name in `shape`, in the order of `keys`, as the models take them
// (auto [m, n, k] = sizes_of(s, ops::mnk)). The loader has checked that the shape gives them.
template <std::size_t N>
std::array<double, N> sizes_of(const Shape& shape, const std::array<const char*, N>& keys) {
    std::array<double, N> sizes{};
    for (std::size_t i = 0; i < N; ++i) sizes[i] = static_cast<double>(shape.at(keys[i]));
    return sizes;
}

}  // namespace roofline
