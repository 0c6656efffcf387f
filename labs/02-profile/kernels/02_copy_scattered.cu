// Defect 2 of lab 02: a copy whose traversal order comes back to each sector too late.   (your file)
// Thread t copies element (t % S) * 8 + t / S, where S = n / 8 is the number of 32-byte
// sectors: the first pass over the array takes the first float of every sector, the
// second pass the second float, and so on, eight passes in all. Each pass sweeps 1 GiB,
// twenty times the L2, so a sector the first pass brought in is gone when the second
// pass wants its next float. Every float is still copied exactly once.
// Before you profile: how many DRAM bytes will ncu count (`predict --bytes`)? Then
// `roofline profile` and compare the DRAM row with the model. Fix: visit the array in
// address order (consecutive threads, consecutive 16-byte vectors).
#include "roofline/contract/elementwise.cuh"

namespace {

__global__ void copy_scattered_kernel(const float* __restrict__ x, float* __restrict__ y, std::size_t n) {
    const std::size_t sectors = n / 8;  // whole 32-byte sectors
    const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
    for (std::size_t t = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; t < n; t += stride) {
        // A bijection of [0, 8 * sectors): pass t / sectors, sector t % sectors; the tail maps to itself.
        const std::size_t i = t < 8 * sectors ? (t % sectors) * 8 + t / sectors : t;
        y[i] = x[i];
    }
}

void copy_scattered(const float* x, float* y, std::size_t n, cudaStream_t stream) {
    int device = 0, sms = 0;
    cudaGetDevice(&device);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    copy_scattered_kernel<<<sms * 8, 256, 0, stream>>>(x, y, n);
}

}  // namespace

ROOFLINE_COPY_VARIANT(copy_scattered_fp32, copy_scattered);
