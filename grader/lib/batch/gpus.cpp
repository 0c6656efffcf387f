#include "gpus.hpp"

#include "input_error.hpp"

#include <cuda_runtime.h>
#include <fmt/format.h>

#include <cstdlib>
#include <sstream>

namespace roofline::batch {

namespace {
std::vector<std::string> split(const std::string& text) {
    std::vector<std::string> items;
    std::stringstream in(text);
    std::string item;
    while (std::getline(in, item, ',')) {
        if (!item.empty()) items.push_back(item);
    }
    return items;
}
}  // namespace

std::vector<std::string> resolve_gpus(const std::string& spec) {
    if (spec == "none") return {};
    if (spec == "all") {
        // Under Slurm or a shared host the visible set may be a subset: keep its names.
        if (const char* visible = std::getenv("CUDA_VISIBLE_DEVICES")) return split(visible);
        int count = 0;
        if (cudaGetDeviceCount(&count) != cudaSuccess) return {};
        std::vector<std::string> all;
        for (int i = 0; i < count; ++i) all.push_back(std::to_string(i));
        return all;
    }
    auto gpus = split(spec);
    for (const auto& gpu : gpus) {
        if (gpu.find_first_not_of("0123456789") != std::string::npos && !gpu.starts_with("GPU-") &&
            !gpu.starts_with("MIG-")) {
            throw InputError(fmt::format("--gpus {}: '{}' is not a device index or UUID; use all, none, or e.g. 0,1",
                                         spec, gpu));
        }
    }
    if (gpus.empty()) throw InputError("--gpus is empty; use all, none, or a list such as 0,1");
    // Indices count the devices this process sees: under CUDA_VISIBLE_DEVICES=2,3, "0" is device 2.
    if (const char* visible = std::getenv("CUDA_VISIBLE_DEVICES")) {
        auto seen = split(visible);
        for (auto& gpu : gpus) {
            if (gpu.find_first_not_of("0123456789") != std::string::npos) continue;
            auto index = std::stoul(gpu);
            if (index >= seen.size()) {
                throw InputError(fmt::format("--gpus {}: device {} is not visible here (CUDA_VISIBLE_DEVICES={})", spec,
                                             gpu, visible));
            }
            gpu = seen[index];
        }
    }
    return gpus;
}

}  // namespace roofline::batch
