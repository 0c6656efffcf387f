// Defect 3 of lab 02: a copy staged through far more shared memory than it needs.   (your file)
// Each block asks for 160 KiB of dynamic shared memory and stages its 16-byte vectors
// through it. An H200 SM has 228 KiB of shared memory, so only one such block fits per
// SM: 256 threads, 8 warps, each with one 16-byte load in flight. Little's law says how
// many bytes must be in flight to keep HBM busy; count how many are.
// Before you profile: which limit binds, and what will the occupancy row say? Then
// `roofline profile`. Fix: stage nothing (a copy needs no shared memory), and let
// enough blocks fit per SM to put the bytes in flight that the memory needs.
#include "roofline/contract/elementwise.cuh"

#include <cstdint>

namespace {

constexpr int kThreads = 256;
constexpr std::size_t kStagingBytes = 160 * 1024;

__global__ void copy_staged_kernel(const float* __restrict__ x, float* __restrict__ y, std::size_t n) {
    extern __shared__ uint4 staging[];  // kStagingBytes: only the first kThreads slots are used
    const std::size_t vectors = n / 4;
    const auto* x4 = reinterpret_cast<const uint4*>(x);
    auto* y4 = reinterpret_cast<uint4*>(y);
    const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
    const std::size_t first = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
    for (std::size_t v = first; v < vectors; v += stride) {
        staging[threadIdx.x] = x4[v];
        y4[v] = staging[threadIdx.x];
    }
    for (std::size_t i = vectors * 4 + first; i < n; i += stride) y[i] = x[i];
}

void copy_staged(const float* x, float* y, std::size_t n, cudaStream_t stream) {
    int device = 0, sms = 0;
    cudaGetDevice(&device);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    cudaFuncSetAttribute(copy_staged_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(kStagingBytes));
    copy_staged_kernel<<<sms * 8, kThreads, kStagingBytes, stream>>>(x, y, n);
}

}  // namespace

ROOFLINE_COPY_VARIANT(copy_staged_fp32, copy_staged);
