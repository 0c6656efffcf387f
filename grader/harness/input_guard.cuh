// The inputs are the grader's: a pristine copy is taken after the inputs are filled
// and before the variant runs, and every input is compared with it after each
// verified launch and after timing. A kernel that writes into an input (zeroes it,
// uses it as scratch, "caches" an answer in it) is INCORRECT, with the input named,
// and the reference never sees what the kernel left behind.
#pragma once
#include "device_buffer.hpp"

#include <cuda_runtime.h>

#include <string>
#include <vector>

namespace roofline::harness {

// One input array as a problem family hands it to the variant.
struct InputView {
    std::string name;         // as in the launch signature: x, a, b, bias ...
    const void* data = nullptr;
    std::size_t bytes = 0;
    std::size_t element_bytes = 4;  // 1, 2, 4 or 8: changes are counted in elements
};

struct InputChange {
    std::string name;
    long long changed = 0;
    long long elements = 0;
};

class InputGuard {
public:
    // Copies every input aside (device to device).
    void snapshot(const std::vector<InputView>& inputs, cudaStream_t stream);
    // The inputs that differ from the snapshot, bit for bit, and by how many elements.
    std::vector<InputChange> changes(const std::vector<InputView>& inputs, cudaStream_t stream) const;

private:
    std::vector<DeviceBytes> pristine_;
};

// "modified its input x: 4099 of 4099 elements changed; ..."
std::string describe_changes(const std::vector<InputChange>& changes);

}  // namespace roofline::harness
