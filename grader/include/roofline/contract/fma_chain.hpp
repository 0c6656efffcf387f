// The fma_chain operation of labs 00 and 01: y = x, then kFmaChainSteps times
// y = fma(y, kFmaChainA, kFmaChainB). Both constants are exact in fp32, so every
// correct order of the same FMAs agrees. Shared by the kernels, the reference
// and the FLOP count (grader/problems/elementwise/model.hpp): plain C++, no CUDA.
#pragma once

namespace roofline::elementwise {

inline constexpr int kFmaChainSteps = 512;
inline constexpr float kFmaChainA = 0.9990234375f;  // 1 - 2^-10
inline constexpr float kFmaChainB = 0.0009765625f;  // 2^-10

}  // namespace roofline::elementwise
