// Rung 2: copy with 16-byte accesses and a grid-stride loop.
// Each thread moves uint4 vectors (4 fp32 or 8 bf16 values per instruction) and
// loops over the array with a grid sized to the GPU (a few blocks per SM), so
// the instruction count per byte drops 4-8x and no block is launched per value.
// The floor is unchanged (same bytes); what this buys is reaching it: expect
// ~93% of cudaMemcpy (a 16-byte copy kernel reached 3.88-3.96 TB/s against cudaMemcpy's
// 4.20 on the H200: results/README.md, "Ceilings"),
// the same for bf16 since the vector width is in bytes, not elements.
#include "roofline/contract/elementwise.cuh"

#include <cstdint>

namespace {

template <class T>
__global__ void copy_vectorized_kernel(const T* __restrict__ x, T* __restrict__ y, std::size_t n) {
    constexpr std::size_t per_vector = sizeof(uint4) / sizeof(T);
    const std::size_t vectors = n / per_vector;
    const auto* x4 = reinterpret_cast<const uint4*>(x);
    auto* y4 = reinterpret_cast<uint4*>(y);
    const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
    const std::size_t first = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
    for (std::size_t v = first; v < vectors; v += stride) y4[v] = x4[v];
    // The tail that does not fill a whole vector: at most per_vector - 1 values.
    for (std::size_t i = vectors * per_vector + first; i < n; i += stride) y[i] = x[i];
}

template <class T>
void copy_vectorized(const T* x, T* y, std::size_t n, cudaStream_t stream) {
    int device = 0, sms = 0;
    cudaGetDevice(&device);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    constexpr int threads = 512;
    std::size_t vectors = n / (sizeof(uint4) / sizeof(T)) + 1;
    auto blocks = static_cast<unsigned>(std::min<std::size_t>(std::size_t(sms) * 8, (vectors + threads - 1) / threads));
    copy_vectorized_kernel<<<blocks, threads, 0, stream>>>(x, y, n);
}

}  // namespace

ROOFLINE_COPY_VARIANT(copy_vectorized_fp32, copy_vectorized<float>);
ROOFLINE_COPY_VARIANT(copy_vectorized_bf16, copy_vectorized<__nv_bfloat16>);
