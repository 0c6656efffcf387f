// The judge's catalogue: every kind of variant a lab can register (a problem family's op,
// dtype and launch signature), each registered once with a trampoline for its launch
// (wire_call.hpp), so that the judge builds the family's own Problem (inputs, reference,
// peer) around a launch that goes to the runner.
#pragma once
#include "registry.hpp"

#include <string>

namespace roofline::harness {

// Registers the kinds (once); called by the judge's main before it serves.
void register_judge_kinds();

// The key a kind is found by, from what the runner says of its variant.
std::string kind_key(const std::string& problem, const std::string& dtype, const std::string& signature);

// The judge's entry for a runner's variant, or null when no family has that kind.
const VariantEntry* find_kind(const std::string& problem, const std::string& dtype, const std::string& signature);

}  // namespace roofline::harness
