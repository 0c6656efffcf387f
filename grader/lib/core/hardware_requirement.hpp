// What GPU a lab variant's machine code can run on. A variant compiled for one
// architecture only (lab 07: sm_100a, tcgen05) declares it in lab.yaml,
//     requires: {compute_capability: "10.0"}
// at lab or variant level, and `roofline grade` / `run` refuse it on any other GPU
// before building or running anything: no score, no log entry, exit 7.
#pragma once
#include <optional>
#include <string>

namespace roofline {

struct ComputeCapability {
    int major = 0, minor = 0;
    bool operator==(const ComputeCapability& other) const { return major == other.major && minor == other.minor; }
};

// "10.0" -> {10, 0}; nothing for anything else ("10", "10.x", "sm_100a").
std::optional<ComputeCapability> parse_compute_capability(const std::string& text);
std::string compute_capability_text(const ComputeCapability& cc);  // "10.0"

// The architecture that runs code for `cc`, in words, for messages: "Blackwell", "Hopper", ...
std::string architecture_name(const ComputeCapability& cc);

// Why `target` cannot run on this GPU (`gpu_name` of capability `gpu`), or nothing when it
// can. Arch-specific machine code (sm_100a, sm_90a) runs on exactly one compute capability,
// so the match is exact: a 10.3 GPU cannot run sm_100a code either.
std::optional<std::string> hardware_refusal(const std::string& target, const ComputeCapability& required,
                                            const std::string& gpu_name, const ComputeCapability& gpu);

}  // namespace roofline
