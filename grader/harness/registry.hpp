// Variants register themselves by name at static-initialization time, from
// the macros in each problem's header (e.g. ROOFLINE_COPY_VARIANT).
#pragma once
#include "problem.hpp"
#include "wire_call.hpp"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace roofline::harness {

struct VariantEntry {
    std::string name;     // as in lab.yaml: copy_vectorized_fp32
    std::string problem;  // the family's operation: copy, scale, add, gemm
    std::string dtype;    // fp32, bf16, ...
    std::string source_file;
    std::function<std::unique_ptr<Problem>()> make;
    Invoker invoker;  // the launch function, called from a judge's call (wire_call.hpp); in a runner
};

bool register_variant(VariantEntry entry);
const std::vector<VariantEntry>& registered_variants();
const VariantEntry* find_variant(const std::string& name);

}  // namespace roofline::harness
