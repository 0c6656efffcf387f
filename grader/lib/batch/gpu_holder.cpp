#include "gpu_holder.hpp"

#include <fmt/format.h>

namespace roofline::batch {

GpuHolder::GpuHolder(const std::filesystem::path& roofline, const std::vector<std::string>& gpus,
                     const std::filesystem::path& log_dir) {
    for (const auto& gpu : gpus) {
        ProcessSpec spec;
        spec.argv = {roofline.string(), "hold-gpu"};
        spec.work_dir = log_dir;
        spec.output_file = log_dir / fmt::format("hold-gpu-{}.txt", gpu);
        spec.env = {{"CUDA_VISIBLE_DEVICES", gpu}};
        spec.stdin_pipe = true;     // it ends when this side closes: with the batch, however the batch ends
        spec.new_session = false;   // and with the batch's session when that is killed
        holders_.push_back(start_process(spec));
    }
}

GpuHolder::~GpuHolder() {
    for (auto& holder : holders_) kill_process(holder);
}

}  // namespace roofline::batch
