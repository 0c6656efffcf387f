// What the grader asks the CUDA runtime itself, before any lab program runs.
#pragma once
#include <optional>
#include <string>

namespace roofline {

struct DeviceInfo {
    std::string name;  // "NVIDIA H200"
    int sm_count = 0;
    long long l2_bytes = 0;
    int cc_major = 0, cc_minor = 0;  // compute capability: 9.0 on the H200, 10.0 on a B200
};

// The first CUDA device, or nothing with the reason (no driver, no device) in `why_not`.
std::optional<DeviceInfo> first_device(std::string* why_not);

}  // namespace roofline
