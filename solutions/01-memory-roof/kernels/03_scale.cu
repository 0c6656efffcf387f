// Rung 3: scale, y = a * x.
// One multiply per element against 8 bytes moved (fp32): 0.125 FLOP/byte, three
// orders of magnitude under the H200's ridge (~15 FLOP/byte for fp32 CUDA cores).
// The arithmetic is free; the time is the copy's. Expect the same ~93% of
// cudaMemcpy as rung 2. bf16 values are widened to fp32, multiplied and rounded
// once, which is what the reference does.
#include "roofline/contract/elementwise.cuh"

#include <cstdint>

namespace {

using roofline::elementwise::from_float;  // fp32 back to T, rounded once (elementwise.cuh)
using roofline::elementwise::to_float;

template <class T>
__global__ void scale_kernel(const T* __restrict__ x, T* __restrict__ y, float a, std::size_t n) {
    constexpr int per_vector = sizeof(uint4) / sizeof(T);
    const std::size_t vectors = n / per_vector;
    const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
    const std::size_t first = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
    for (std::size_t v = first; v < vectors; v += stride) {
        uint4 packed = reinterpret_cast<const uint4*>(x)[v];
        T* values = reinterpret_cast<T*>(&packed);
#pragma unroll
        for (int j = 0; j < per_vector; ++j) values[j] = from_float<T>(a * to_float(values[j]));
        reinterpret_cast<uint4*>(y)[v] = packed;
    }
    for (std::size_t i = vectors * per_vector + first; i < n; i += stride) y[i] = from_float<T>(a * to_float(x[i]));
}

template <class T>
void scale(const T* x, T* y, float a, std::size_t n, cudaStream_t stream) {
    int device = 0, sms = 0;
    cudaGetDevice(&device);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    constexpr int threads = 512;
    std::size_t vectors = n / (sizeof(uint4) / sizeof(T)) + 1;
    auto blocks = static_cast<unsigned>(std::min<std::size_t>(std::size_t(sms) * 8, (vectors + threads - 1) / threads));
    scale_kernel<<<blocks, threads, 0, stream>>>(x, y, a, n);
}

}  // namespace

ROOFLINE_SCALE_VARIANT(scale_fp32, scale<float>);
ROOFLINE_SCALE_VARIANT(scale_bf16, scale<__nv_bfloat16>);
