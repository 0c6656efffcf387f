// FLOP and byte model of the elementwise problems: each input element read
// once, each output element written once, one FLOP per element for scale and
// add. The peer, cudaMemcpy, reads and writes one array.
#pragma once
#include <stdexcept>
#include <string_view>

namespace roofline::elementwise {

struct Work {
    double flops = 0;
    double bytes = 0;
};

inline int inputs_of(std::string_view op) {
    if (op == "copy" || op == "scale") return 1;
    if (op == "add") return 2;
    throw std::invalid_argument("unknown elementwise op '" + std::string(op) + "' (copy, scale or add)");
}

inline Work work_of(std::string_view op, double n, double element_bytes) {
    double flops_per_element = op == "copy" ? 0 : 1;
    return {flops_per_element * n, (inputs_of(op) + 1) * n * element_bytes};
}

inline Work peer_work_of(double n, double element_bytes) { return {0, 2 * n * element_bytes}; }

}  // namespace roofline::elementwise
