// The elementwise family's op names and shape keys, written once: the grader's descriptor
// (family.cpp) and the lab program's registration and shape check (elementwise_problem.cu) read them, and lab.yaml's `op:` and `shape:` must spell them so.
#pragma once
#include <array>

namespace roofline::elementwise::ops {

inline constexpr const char* copy = "copy";            // y = x
inline constexpr const char* scale = "scale";          // y = a x
inline constexpr const char* add = "add";              // y = a + b
inline constexpr const char* fma_chain = "fma_chain";  // y = 512 dependent FMAs on x (fma_chain.hpp)
// Every op's one size: the element count.
inline constexpr std::array<const char*, 1> n{"n"};

}  // namespace roofline::elementwise::ops
