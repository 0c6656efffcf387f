// What the grader asks the CUDA runtime itself, before any lab program runs.
#pragma once
#include <optional>
#include <string>

namespace roofline {

struct DeviceInfo {
    std::string name;  // "NVIDIA H200"
    int sm_count = 0;
    long long l2_bytes = 0;
};

// The first CUDA device, or nothing with the reason (no driver, no device) in `why_not`.
std::optional<DeviceInfo> first_device(std::string* why_not);

}  // namespace roofline
