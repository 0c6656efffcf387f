// `roofline timeline`'s run: the lab program built, asked to verify the variant (an incorrect
// kernel's timeline is not worth reading) and then to record one launch of it with CUPTI
// (`--mode timeline`), its records turned into a Timeline (timeline.hpp). The CLI checks
// where it will write before this runs, and prints and writes what it returns.
#pragma once
#include "lab_result.hpp"
#include "lab_spec.hpp"
#include "timeline.hpp"
#include "workspace.hpp"

#include <cstdint>
#include <optional>
#include <string>

namespace roofline {

struct TimelineRequest {
    const LabSpec* lab = nullptr;
    const VariantSpec* variant = nullptr;
    Shape shape;             // the shape to launch at (the variant's timed shape, or --shape)
    bool solutions = false;  // solutions/ instead of labs/
    bool build = true;
    std::uint64_t seed = 1;
};

struct TimelineRun {
    int exit_code = 0;    // 0: a timeline; else the CLI's exit code (a failed build, no device, the variant's outcome)
    std::string refusal;  // why there is no timeline, for stderr
    Timeline timeline;
    std::string device;                          // the CUDA device's name
    std::optional<protocol::Timeline> records;   // CUPTI's records, as the lab program sent them (--trace)
};

TimelineRun run_timeline(const Workspace& workspace, const TimelineRequest& request);

}  // namespace roofline
