#include "device_query.hpp"

#include <cuda_runtime.h>

namespace roofline {

std::optional<DeviceInfo> first_device(std::string* why_not) {
    int count = 0;
    cudaError_t status = cudaGetDeviceCount(&count);
    if (status != cudaSuccess || count == 0) {
        if (why_not) *why_not = status != cudaSuccess ? cudaGetErrorString(status) : "no CUDA device found";
        return std::nullopt;
    }
    cudaDeviceProp prop{};
    if (cudaGetDeviceProperties(&prop, 0) != cudaSuccess) {
        if (why_not) *why_not = "cannot read the device's properties";
        return std::nullopt;
    }
    return DeviceInfo{prop.name, prop.multiProcessorCount, prop.l2CacheSize, prop.major, prop.minor};
}

}  // namespace roofline
