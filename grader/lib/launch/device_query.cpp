#include "device_query.hpp"

#include <cuda_runtime.h>
#include <dlfcn.h>
#include <fmt/format.h>

#include <filesystem>

#include <string>

namespace roofline {

namespace {

// On a machine without a GPU there is usually no driver either, and CUDA then says
// "driver version is insufficient": true, but it reads as if a driver update would help.
std::string no_device_reason(cudaError_t status) {
    switch (status) {
        case cudaSuccess:
        case cudaErrorNoDevice: return "no NVIDIA GPU found";
        case cudaErrorInsufficientDriver:
            if (auto missing = missing_gpu_driver()) return *missing;
            return "no NVIDIA GPU driver found, or one older than this CUDA build needs; `nvidia-smi` lists the GPU "
                   "and driver if there is one";
        default: return fmt::format("CUDA could not list the GPUs: {}", cudaGetErrorString(status));
    }
}

}  // namespace

std::optional<std::string> missing_gpu_driver() {
    std::error_code error;
    bool device_files = std::filesystem::exists("/dev/nvidiactl", error) || std::filesystem::exists("/dev/nvidia0", error);
    void* driver = ::dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
    if (driver) ::dlclose(driver);
    if (device_files && driver) return std::nullopt;
    if (!driver && !device_files) {
        return std::string("no NVIDIA GPU driver here (no /dev/nvidia* device files, no libcuda.so.1): this machine has "
                           "no usable NVIDIA GPU");
    }
    if (!driver) return std::string("no NVIDIA GPU driver here (libcuda.so.1 cannot be loaded): install the driver, or "
                                    "use a machine with one");
    return std::string("no NVIDIA GPU device files here (/dev/nvidia*): the driver's library is installed but no GPU is "
                       "visible (in a container: is it started with the GPUs?)");
}

std::optional<DeviceInfo> first_device(std::string* why_not) {
    int count = 0;
    cudaError_t status = cudaGetDeviceCount(&count);
    if (status != cudaSuccess || count == 0) {
        if (why_not) *why_not = no_device_reason(status);
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
