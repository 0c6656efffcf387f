// Rung 1 (given): the chain y = gelu(x * a + b) * c as three kernels.
// This is how the chain runs when each operation is its own library call:
//     y = x * a + b;      y = gelu(y);      y = y * c;
// Each kernel is a good elementwise kernel (16-byte accesses of 8 bf16, a
// grid-stride loop, a grid of a few blocks per SM), so each one runs near the
// memory roof. But each one reads and writes the whole array, and the
// intermediate goes through HBM (and is rounded to bf16) twice: 3 x (2n + 2n)
// bytes = 12n, three times the 4n the chain needs. At n = 2^28 that is 3 GiB,
// ~770 us at ~4.2 TB/s, against ~256 us for one pass. Nothing here is slow;
// there is just three times too much of it. Rung 2 fuses the three.
#include "roofline/contract/fusion.cuh"

#include <algorithm>
#include <cstdint>

namespace {

struct AffineOp {
    float a, b;
    __device__ float operator()(float v) const { return v * a + b; }
};
struct GeluOp {
    __device__ float operator()(float v) const { return roofline::fusion::gelu_tanh(v); }
};
struct ScaleOp {
    float c;
    __device__ float operator()(float v) const { return v * c; }
};

// out[i] = bf16(op(float(in[i]))). `in` may equal `out` (kernels 2 and 3 run in place on y),
// so neither pointer is __restrict__; each element is read and written by the same thread.
template <class Op>
__global__ void elementwise_kernel(const __nv_bfloat16* in, __nv_bfloat16* out, Op op, std::size_t n) {
    constexpr int per_vector = sizeof(uint4) / sizeof(__nv_bfloat16);  // 8
    const std::size_t vectors = n / per_vector;
    const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
    const std::size_t first = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
    for (std::size_t v = first; v < vectors; v += stride) {
        uint4 packed = reinterpret_cast<const uint4*>(in)[v];
        auto* values = reinterpret_cast<__nv_bfloat16*>(&packed);
#pragma unroll
        for (int j = 0; j < per_vector; ++j) values[j] = __float2bfloat16(op(__bfloat162float(values[j])));
        reinterpret_cast<uint4*>(out)[v] = packed;
    }
    for (std::size_t i = vectors * per_vector + first; i < n; i += stride)
        out[i] = __float2bfloat16(op(__bfloat162float(in[i])));
}

template <class Op>
void launch_pass(const __nv_bfloat16* in, __nv_bfloat16* out, Op op, std::size_t n, int sms, cudaStream_t stream) {
    constexpr int threads = 512;
    std::size_t vectors = n / 8 + 1;
    auto blocks = static_cast<unsigned>(std::min<std::size_t>(std::size_t(sms) * 8, (vectors + threads - 1) / threads));
    elementwise_kernel<<<blocks, threads, 0, stream>>>(in, out, op, n);
}

void chain_unfused(const __nv_bfloat16* x, __nv_bfloat16* y, float a, float b, float c, std::size_t n,
                   cudaStream_t stream) {
    if (n == 0) return;
    int device = 0, sms = 0;
    cudaGetDevice(&device);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    launch_pass(x, y, AffineOp{a, b}, n, sms, stream);  // reads x, writes y
    launch_pass(y, y, GeluOp{}, n, sms, stream);        // reads y, writes y
    launch_pass(y, y, ScaleOp{c}, n, sms, stream);      // reads y, writes y
}

}  // namespace

ROOFLINE_CHAIN_VARIANT(chain_unfused, chain_unfused);
