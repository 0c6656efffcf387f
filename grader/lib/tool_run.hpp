// Running a lab program under a tool (ncu for `roofline profile`, compute-sanitizer for
// `roofline run --sanitize`): where the tool is, and the lab program's arguments for one
// unwatched launch per shape (`--mode once`, grader/harness/lab_main.cpp).
#pragma once
#include "lab_spec.hpp"

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace roofline {

// `env` (ROOFLINE_NCU) when set, else `name` on PATH, else beside nvcc's folders
// (/usr/local/cuda/bin) and under /opt/nvidia/nsight-compute/*/; empty when not found.
std::filesystem::path find_tool(const std::string& name, const std::string& env);

// The lab program's arguments: one launch per shape in `shapes`, verified after it,
// the result written to `result_file`.
std::vector<std::string> once_arguments(const LabSpec& lab, const VariantSpec& variant, const std::vector<Shape>& shapes,
                                        std::uint64_t seed, const std::filesystem::path& result_file);

}  // namespace roofline
