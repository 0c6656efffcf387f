// Device memory with guard regions on both sides. The guards hold a sentinel
// byte pattern; a kernel that writes past either end of its output changes
// them, and verify() reports the stray write.
#pragma once
#include "cuda_check.hpp"

#include <cstddef>
#include <cstdint>

namespace roofline::harness {

inline constexpr std::size_t kGuardBytes = 64 * 1024;
inline constexpr unsigned char kGuardByte = 0xA5;

class DeviceBytes {
public:
    DeviceBytes() = default;
    explicit DeviceBytes(std::size_t bytes, bool guarded = false);
    ~DeviceBytes();
    DeviceBytes(const DeviceBytes&) = delete;
    DeviceBytes& operator=(const DeviceBytes&) = delete;
    DeviceBytes(DeviceBytes&& other) noexcept;
    DeviceBytes& operator=(DeviceBytes&& other) noexcept;

    void* data() const { return data_; }
    std::size_t bytes() const { return bytes_; }
    // Writes the sentinel into both guards (no-op for unguarded buffers).
    void arm_guards(cudaStream_t stream) const;
    // Bytes in the guards that no longer hold the sentinel, in two steps so that a caller waits
    // once: both guards copied into `host` (2 * kGuardBytes, pinned for speed) on `stream`,
    // then counted there once the stream is done.
    void copy_guards(unsigned char* host, cudaStream_t stream) const;
    std::size_t guard_damage_in(const unsigned char* host) const;

private:
    unsigned char* base_ = nullptr;  // start of the front guard
    void* data_ = nullptr;           // what kernels see
    std::size_t bytes_ = 0;
    bool guarded_ = false;
};

template <class T>
class DeviceArray {
public:
    DeviceArray() = default;
    explicit DeviceArray(std::size_t count, bool guarded = false)
        : storage_(count * sizeof(T), guarded), count_(count) {}
    T* data() const { return static_cast<T*>(storage_.data()); }
    std::size_t size() const { return count_; }
    const DeviceBytes& storage() const { return storage_; }

private:
    DeviceBytes storage_;
    std::size_t count_ = 0;
};

}  // namespace roofline::harness
