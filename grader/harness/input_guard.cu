#include "input_guard.cuh"

#include <fmt/format.h>

#include <stdexcept>

namespace roofline::harness {

namespace {

template <class Word>
__global__ void count_differences(const Word* now, const Word* before, std::size_t count,
                                  unsigned long long* differences) {
    unsigned long long mine = 0;
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < count;
         i += std::size_t(gridDim.x) * blockDim.x) {
        mine += now[i] != before[i];
    }
    for (int offset = 16; offset > 0; offset /= 2) mine += __shfl_down_sync(0xffffffffu, mine, offset);
    if (threadIdx.x % 32 == 0 && mine > 0) atomicAdd(differences, mine);
}

template <class Word>
void launch_count(const void* now, const void* before, std::size_t bytes, unsigned long long* differences,
                  cudaStream_t stream) {
    std::size_t count = bytes / sizeof(Word);
    unsigned blocks = static_cast<unsigned>(std::min<std::size_t>((count + 255) / 256 + 1, 4096));
    count_differences<<<blocks, 256, 0, stream>>>(static_cast<const Word*>(now), static_cast<const Word*>(before),
                                                  count, differences);
    CUDA_CHECK(cudaGetLastError());
}

}  // namespace

void InputGuard::snapshot(const std::vector<InputView>& inputs, cudaStream_t stream) {
    pristine_.resize(inputs.size());
    for (std::size_t i = 0; i < inputs.size(); ++i) {
        if (pristine_[i].bytes() != inputs[i].bytes) pristine_[i] = DeviceBytes(inputs[i].bytes);
        CUDA_CHECK(cudaMemcpyAsync(pristine_[i].data(), inputs[i].data, inputs[i].bytes, cudaMemcpyDeviceToDevice,
                                   stream));
    }
}

std::vector<InputChange> InputGuard::changes(const std::vector<InputView>& inputs, cudaStream_t stream) const {
    if (inputs.size() != pristine_.size()) throw std::logic_error("InputGuard: inputs changed shape since the snapshot");
    std::vector<InputChange> found;
    if (inputs.empty()) return found;
    unsigned long long* counts = nullptr;
    CUDA_CHECK(cudaMallocAsync(&counts, inputs.size() * sizeof(unsigned long long), stream));
    CUDA_CHECK(cudaMemsetAsync(counts, 0, inputs.size() * sizeof(unsigned long long), stream));
    for (std::size_t i = 0; i < inputs.size(); ++i) {
        const auto& in = inputs[i];
        switch (in.element_bytes) {
            case 8: launch_count<unsigned long long>(in.data, pristine_[i].data(), in.bytes, counts + i, stream); break;
            case 4: launch_count<unsigned int>(in.data, pristine_[i].data(), in.bytes, counts + i, stream); break;
            case 2: launch_count<unsigned short>(in.data, pristine_[i].data(), in.bytes, counts + i, stream); break;
            default: launch_count<unsigned char>(in.data, pristine_[i].data(), in.bytes, counts + i, stream); break;
        }
    }
    std::vector<unsigned long long> host(inputs.size());
    CUDA_CHECK(cudaMemcpyAsync(host.data(), counts, host.size() * sizeof(unsigned long long), cudaMemcpyDeviceToHost,
                               stream));
    CUDA_CHECK(cudaFreeAsync(counts, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    for (std::size_t i = 0; i < inputs.size(); ++i) {
        if (host[i] > 0) {
            long long elements = static_cast<long long>(inputs[i].bytes / std::max<std::size_t>(1, inputs[i].element_bytes));
            found.push_back({inputs[i].name, static_cast<long long>(host[i]), elements});
        }
    }
    return found;
}

std::string describe_changes(const std::vector<InputChange>& changes) {
    std::string out;
    for (const auto& c : changes) {
        out += fmt::format("{}modified its input {}: {} of {} elements changed", out.empty() ? "" : "; ", c.name,
                           c.changed, c.elements);
    }
    return out;
}

}  // namespace roofline::harness
