// Memory-bound: y = a * x over 2^26 fp32 values (256 MiB in, 256 MiB out).
// One multiply per 8 bytes is 0.125 FLOP/byte, far left of the H200's fp32
// ridge (~15 FLOP/byte), so the time is bytes / bandwidth: 537 MB at the
// ~4.2 TB/s cudaMemcpy reaches is ~128 us. Quarter the input and the time
// quarters: the work, not a fixed cost, sets it.
#include "roofline/contract/elementwise.cuh"

namespace {

__global__ void scale_kernel(const float4* __restrict__ x, float4* __restrict__ y, float a, std::size_t vectors) {
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < vectors;
         i += std::size_t(gridDim.x) * blockDim.x) {
        float4 v = x[i];
        y[i] = make_float4(a * v.x, a * v.y, a * v.z, a * v.w);
    }
}

__global__ void scale_tail(const float* x, float* y, float a, std::size_t first, std::size_t n) {
    std::size_t i = first + threadIdx.x;
    if (i < n) y[i] = a * x[i];
}

void scale(const float* x, float* y, float a, std::size_t n, cudaStream_t stream) {
    int device = 0, sms = 0;
    cudaGetDevice(&device);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    std::size_t vectors = n / 4;
    if (vectors > 0) {
        auto blocks = static_cast<unsigned>(std::min<std::size_t>(std::size_t(sms) * 8, (vectors + 511) / 512));
        scale_kernel<<<blocks, 512, 0, stream>>>(reinterpret_cast<const float4*>(x), reinterpret_cast<float4*>(y), a,
                                                  vectors);
    }
    if (n % 4) scale_tail<<<1, 32, 0, stream>>>(x, y, a, vectors * 4, n);
}

}  // namespace

ROOFLINE_SCALE_VARIANT(memory_scale, scale);
