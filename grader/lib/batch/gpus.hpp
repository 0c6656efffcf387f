// Which GPUs a batch grades on: one worker per GPU, each started with
// CUDA_VISIBLE_DEVICES set to its device, so every submission sees "device 0".
#pragma once
#include <string>
#include <vector>

namespace roofline::batch {

// "all": every device this process may use (CUDA_VISIBLE_DEVICES if set, else the
// CUDA runtime's count); "0,1": those (indices among the devices this process sees);
// "none": grade without a GPU. Returns CUDA_VISIBLE_DEVICES values; empty: no GPU.
std::vector<std::string> resolve_gpus(const std::string& spec);

}  // namespace roofline::batch
