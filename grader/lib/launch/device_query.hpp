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

// Whether this machine plainly has no NVIDIA GPU driver, found without starting CUDA
// (which costs driver time): no /dev/nvidia* device files, or no libcuda.so.1 to load.
// The reason in words ("no NVIDIA GPU driver here: ..."), or nothing where both are
// present (the lab program then asks the driver itself). Said before a build, so a
// student without a GPU is not left waiting minutes to learn it.
std::optional<std::string> missing_gpu_driver();

}  // namespace roofline
