// Rung 2: copy with 16-byte accesses and a grid-stride loop.   (your file: edit the TODOs)
// Same bytes as rung 1, so the same floor. What changes is how close you get:
// one uint4 load/store moves 16 bytes (4 fp32 or 8 bf16) per instruction, and a
// grid sized to the GPU (a few blocks per SM) looping over the array avoids
// launching millions of tiny blocks. Predict the fraction of cudaMemcpy first.
#include "roofline/contract/elementwise.cuh"

#include <cstdint>

namespace {

template <class T>
__global__ void copy_vectorized_kernel(const T* __restrict__ x, T* __restrict__ y, std::size_t n) {
    constexpr std::size_t per_vector = sizeof(uint4) / sizeof(T);  // values per 16 bytes
    // TODO: view x and y as arrays of uint4 (reinterpret_cast; cudaMalloc memory is 256-byte aligned).
    // TODO: grid-stride loop over the n / per_vector whole vectors:
    //         for (v = global thread index; v < vectors; v += total threads in the grid) y4[v] = x4[v];
    // TODO: copy the tail (n % per_vector values past the last whole vector) one value at a time.
    //       The grader verifies n = 1, 17 and 4099 as well: all of them have tails.
}

template <class T>
void copy_vectorized(const T* x, T* y, std::size_t n, cudaStream_t stream) {
    int device = 0, sms = 0;
    cudaGetDevice(&device);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    constexpr int threads = 512;
    // TODO: a grid of a few blocks per SM (try sms * 4 or sms * 8), but no more blocks than the
    //       vectors need. Measure a few choices: this is a tuning knob, not a formula.
    unsigned blocks = 1;
    copy_vectorized_kernel<<<blocks, threads, 0, stream>>>(x, y, n);
}

}  // namespace

ROOFLINE_COPY_VARIANT(copy_vectorized_fp32, copy_vectorized<float>);
ROOFLINE_COPY_VARIANT(copy_vectorized_bf16, copy_vectorized<__nv_bfloat16>);
