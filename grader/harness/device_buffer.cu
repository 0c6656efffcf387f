#include "device_buffer.hpp"
#include "shared_buffers.hpp"

#include <utility>

namespace roofline::harness {

DeviceBytes::DeviceBytes(std::size_t bytes, bool guarded) : bytes_(bytes), guarded_(guarded) {
    std::size_t guard = guarded ? kGuardBytes : 0;
    base_ = static_cast<unsigned char*>(allocate_device_bytes(bytes + 2 * guard));
    data_ = base_ + guard;
}

DeviceBytes::~DeviceBytes() {
    if (base_) free_device_bytes(base_);  // no throw from a destructor; a sticky error is reported elsewhere
}

DeviceBytes::DeviceBytes(DeviceBytes&& other) noexcept { *this = std::move(other); }

DeviceBytes& DeviceBytes::operator=(DeviceBytes&& other) noexcept {
    std::swap(base_, other.base_);
    std::swap(data_, other.data_);
    std::swap(bytes_, other.bytes_);
    std::swap(guarded_, other.guarded_);
    return *this;
}

void DeviceBytes::arm_guards(cudaStream_t stream) const {
    if (!guarded_) return;
    CUDA_CHECK(cudaMemsetAsync(base_, kGuardByte, kGuardBytes, stream));
    CUDA_CHECK(cudaMemsetAsync(base_ + kGuardBytes + bytes_, kGuardByte, kGuardBytes, stream));
}

void DeviceBytes::copy_guards(unsigned char* host, cudaStream_t stream) const {
    if (!guarded_) return;
    CUDA_CHECK(cudaMemcpyAsync(host, base_, kGuardBytes, cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaMemcpyAsync(host + kGuardBytes, base_ + kGuardBytes + bytes_, kGuardBytes, cudaMemcpyDeviceToHost,
                               stream));
}

std::size_t DeviceBytes::guard_damage_in(const unsigned char* host) const {
    if (!guarded_) return 0;
    std::size_t damaged = 0;
    for (std::size_t i = 0; i < 2 * kGuardBytes; ++i) damaged += host[i] != kGuardByte;
    return damaged;
}

}  // namespace roofline::harness
