// Rung 1: copy, one element per thread.
// y[i] = x[i] with a grid of ceil(n / 256) blocks, each thread moving one value.
// Copy does no arithmetic, so its floor is bytes / bandwidth: 2 GiB moved
// (1 GiB read, 1 GiB written) at ~4.2 TB/s is ~510 us on an H200.
// Predicted 85-95% of cudaMemcpy; measured 65% (fp32) and 37% (bf16) on the
// H200, 2026-11-29. The gap is bytes in flight: a thread has one 4-byte load
// outstanding (2 bytes in bf16), so a full SM (2048 threads) keeps only 8 KiB
// in flight, about 1 MiB across 132 SMs, while covering HBM latency at 4 TB/s
// takes a few MiB (Little's law). Rung 2 fixes exactly that.
#include "roofline/contract/elementwise.cuh"

namespace {

template <class T>
__global__ void copy_naive_kernel(const T* x, T* y, std::size_t n) {
    std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
    if (i < n) y[i] = x[i];
}

template <class T>
void copy_naive(const T* x, T* y, std::size_t n, cudaStream_t stream) {
    constexpr int threads = 256;
    auto blocks = static_cast<unsigned>((n + threads - 1) / threads);
    copy_naive_kernel<<<blocks, threads, 0, stream>>>(x, y, n);
}

}  // namespace

ROOFLINE_COPY_VARIANT(copy_naive_fp32, copy_naive<float>);
ROOFLINE_COPY_VARIANT(copy_naive_bf16, copy_naive<__nv_bfloat16>);
