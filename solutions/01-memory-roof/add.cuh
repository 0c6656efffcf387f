// The design of solutions/01-memory-roof/kernels/04_add.cu, shared with the lab's open rung
// (kernels/06_open_add.cu), which reuses it as our reference; each file registers it under its own name.
#pragma once
// Rung 4: add, c = a + b.
// Two reads per write: 12 bytes per element in fp32 (3 GiB at the timed size),
// still 1 FLOP per element. Expect ~1.5x the copy's time and the same bandwidth
// fraction; reads are a little cheaper than writes on HBM, so it may land a
// point or two above the copy.
#include "roofline/contract/elementwise.cuh"

#include <cstdint>

namespace {

using roofline::elementwise::from_float;  // fp32 back to T, rounded once (elementwise.cuh)
using roofline::elementwise::to_float;

template <class T>
__global__ void add_kernel(const T* __restrict__ a, const T* __restrict__ b, T* __restrict__ c, std::size_t n) {
    constexpr int per_vector = sizeof(uint4) / sizeof(T);
    const std::size_t vectors = n / per_vector;
    const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
    const std::size_t first = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
    for (std::size_t v = first; v < vectors; v += stride) {
        uint4 packed_a = reinterpret_cast<const uint4*>(a)[v];
        uint4 packed_b = reinterpret_cast<const uint4*>(b)[v];
        T* va = reinterpret_cast<T*>(&packed_a);
        const T* vb = reinterpret_cast<const T*>(&packed_b);
#pragma unroll
        for (int j = 0; j < per_vector; ++j) va[j] = from_float<T>(to_float(va[j]) + to_float(vb[j]));
        reinterpret_cast<uint4*>(c)[v] = packed_a;
    }
    for (std::size_t i = vectors * per_vector + first; i < n; i += stride) {
        c[i] = from_float<T>(to_float(a[i]) + to_float(b[i]));
    }
}

template <class T>
void add(const T* a, const T* b, T* c, std::size_t n, cudaStream_t stream) {
    int device = 0, sms = 0;
    cudaGetDevice(&device);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    constexpr int threads = 512;
    std::size_t vectors = n / (sizeof(uint4) / sizeof(T)) + 1;
    auto blocks = static_cast<unsigned>(std::min<std::size_t>(std::size_t(sms) * 8, (vectors + threads - 1) / threads));
    add_kernel<<<blocks, threads, 0, stream>>>(a, b, c, n);
}

}  // namespace

