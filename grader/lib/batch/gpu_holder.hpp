// While a batch grades, one `roofline hold-gpu` per GPU keeps a CUDA context open there:
// the start of every lab program and `roofline grade` on that GPU is then ~0.1 s shorter
// (the driver keeps the device's state up while any context is open, persistence mode or
// not). The holders are killed with the batch; a holder that cannot start changes nothing.
#pragma once
#include "process.hpp"

#include <filesystem>
#include <string>
#include <vector>

namespace roofline::batch {

class GpuHolder {
public:
    // `gpus`: CUDA_VISIBLE_DEVICES values, as the batch's workers get them; empty: none.
    GpuHolder(const std::filesystem::path& roofline, const std::vector<std::string>& gpus,
              const std::filesystem::path& log_dir);
    ~GpuHolder();
    GpuHolder(const GpuHolder&) = delete;
    GpuHolder& operator=(const GpuHolder&) = delete;

private:
    std::vector<RunningProcess> holders_;
};

}  // namespace roofline::batch
