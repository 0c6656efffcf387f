// One job for a lab program (protocol/lab_job.hpp) from the variant's lab.yaml: its tolerances,
// timeouts and seed. Every caller that starts a lab program (grading, the tools, the timeline)
// asks for its jobs here, so lab.yaml's numbers reach the program one way only.
#pragma once
#include "lab_job.hpp"
#include "lab_spec.hpp"

#include <cstdint>
#include <filesystem>

namespace roofline {

// One job for the lab program from lab.yaml (tolerances, timeouts, the seed), up to the
// shapes, which the caller adds.
protocol::Job lab_job(const LabSpec& lab, const VariantSpec& variant, protocol::JobMode mode, std::uint64_t seed,
                      const std::filesystem::path& result_file, double time_cap_s);

}  // namespace roofline
