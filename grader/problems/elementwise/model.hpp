// FLOP and byte model of the elementwise problems: each input element read
// once, each output element written once, one FLOP per element for scale and
// add, and 2 x kFmaChainSteps for fma_chain. The peer, cudaMemcpy, reads and
// writes one array.
#pragma once
#include <stdexcept>
#include <string>
#include <string_view>

namespace roofline::elementwise {

// fma_chain: y = x, then kFmaChainSteps times y = fma(y, kFmaChainA, kFmaChainB).
// Both constants are exact in fp32, so every correct order of the same FMAs agrees.
inline constexpr int kFmaChainSteps = 512;
inline constexpr float kFmaChainA = 0.9990234375f;  // 1 - 2^-10
inline constexpr float kFmaChainB = 0.0009765625f;  // 2^-10

struct Work {
    double flops = 0;
    double bytes = 0;
};

inline int inputs_of(std::string_view op) {
    if (op == "copy" || op == "scale" || op == "fma_chain") return 1;
    if (op == "add") return 2;
    throw std::invalid_argument("unknown elementwise op '" + std::string(op) + "' (copy, scale, add or fma_chain)");
}

inline Work work_of(std::string_view op, double n, double element_bytes) {
    double flops_per_element = op == "copy" ? 0 : op == "fma_chain" ? 2.0 * kFmaChainSteps : 1;
    return {flops_per_element * n, (inputs_of(op) + 1) * n * element_bytes};
}

inline Work peer_work_of(double n, double element_bytes) { return {0, 2 * n * element_bytes}; }

}  // namespace roofline::elementwise
