// Running a lab program under a tool (ncu for `roofline profile`, compute-sanitizer for
// `roofline run --sanitize`): where the tool is, and the lab program's arguments for one
// unwatched launch per shape (a `once` job, grader/harness/lab_main.cpp).
#pragma once
#include "lab_job.hpp"
#include "lab_spec.hpp"

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace roofline {

// `env` (ROOFLINE_NCU) when set, else `name` on PATH, else /usr/local/cuda/bin and
// /opt/nvidia/nsight-compute/*/; empty when not found or when `env` names no executable.
std::filesystem::path find_tool(const std::string& name, const std::string& env);
// Why find_tool found nothing, with `install` (how to get the tool) and the variable to set.
std::string missing_tool_message(const std::string& name, const std::string& env, const std::string& install);

// The job: one launch per shape in `shapes`, verified after it, the answer written to `result_file`.
protocol::Job once_job(const LabSpec& lab, const VariantSpec& variant, const std::vector<Shape>& shapes,
                       std::uint64_t seed, const std::filesystem::path& result_file);

// The lab program's arguments for `job`: the job itself (protocol/lab_job.hpp) in job.json
// beside its result file.
std::vector<std::string> once_arguments(const protocol::Job& job);

}  // namespace roofline
