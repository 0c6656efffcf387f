// Given code for lab 04's rung 6: Y = gelu(A B + bias) as three kernels, the
// way it runs when each step is its own library call:
//     1. the given GEMM (gemm_with_epilogue.cuh), writing Y = A B in bf16;
//     2. add_bias_kernel: Y[r][c] += bias[c], reading Y and writing it back;
//     3. gelu_kernel: Y = gelu(Y), reading Y and writing it back.
// Kernels 2 and 3 are good elementwise kernels: each thread moves 16 bytes
// (8 bf16) per access, walks the output with a grid-stride loop, and the grid
// is 8 blocks of 512 threads per SM, so each runs near the memory roof. What
// they cost is the bytes: each reads and writes the whole output.
//
// Rung 6's lab file calls launch_unfused_gemm_bias_gelu; the grader times the
// same function beside every fused variant (the GEMM + bias + GELU problem's
// "also measured" column), so both always run this one copy of the code.
//
// Shapes: N a multiple of 8, so that each 16-byte vector of Y lies in one row;
// M a multiple of 128 (the GEMM's block tile); M * N below 2^31.
//
// Internal linkage (an unnamed namespace), as in gemm_with_epilogue.cuh: each
// file that includes this header gets its own copy of the kernels.
#pragma once
#include "roofline/contract/fusion.cuh"
#include "gemm_with_epilogue.cuh"

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace roofline::fusion {

namespace {

namespace unfused {
constexpr int kThreads = 512;
constexpr int kPerVector = 8;  // bf16 per 16-byte vector
constexpr int kBlocksPerSm = 8;
}  // namespace unfused

// Y[r][c] += bias[c], in place; `vectors` = M * N / 8 (< 2^28 while M * N < 2^31).
__global__ void add_bias_kernel(__nv_bfloat16* Y, const __nv_bfloat16* bias, unsigned vectors, unsigned n) {
    using unfused::kPerVector;
    auto* y4 = reinterpret_cast<uint4*>(Y);
    for (unsigned v = blockIdx.x * blockDim.x + threadIdx.x; v < vectors; v += gridDim.x * blockDim.x) {
        uint4 packed = y4[v];
        const uint4 b = *reinterpret_cast<const uint4*>(bias + (v * kPerVector) % n);
        auto* y = reinterpret_cast<__nv_bfloat162*>(&packed);
        const auto* bb = reinterpret_cast<const __nv_bfloat162*>(&b);
#pragma unroll
        for (int j = 0; j < kPerVector / 2; ++j) {
            const float2 yf = __bfloat1622float2(y[j]), bf = __bfloat1622float2(bb[j]);
            y[j] = __floats2bfloat162_rn(yf.x + bf.x, yf.y + bf.y);
        }
        y4[v] = packed;
    }
}

// Y = gelu(Y), in place, with the reference's tanh-form GELU (accurate tanhf).
__global__ void gelu_kernel(__nv_bfloat16* Y, unsigned vectors) {
    using unfused::kPerVector;
    auto* y4 = reinterpret_cast<uint4*>(Y);
    for (unsigned v = blockIdx.x * blockDim.x + threadIdx.x; v < vectors; v += gridDim.x * blockDim.x) {
        uint4 packed = y4[v];
        auto* y = reinterpret_cast<__nv_bfloat162*>(&packed);
#pragma unroll
        for (int j = 0; j < kPerVector / 2; ++j) {
            const float2 yf = __bfloat1622float2(y[j]);
            y[j] = __floats2bfloat162_rn(gelu_tanh(yf.x), gelu_tanh(yf.y));
        }
        y4[v] = packed;
    }
}

// Y = gelu(A B + bias) as the three kernels above, in order on `stream`; `sms` is the
// GPU's SM count, which sizes the elementwise grids.
void launch_unfused_gemm_bias_gelu(const __nv_bfloat16* A, const __nv_bfloat16* B, const __nv_bfloat16* bias,
                                   __nv_bfloat16* Y, int M, int N, int K, int sms, cudaStream_t stream) {
    using namespace unfused;
    launch_gemm_with_epilogue(A, B, M, N, K, StoreBf16{Y, N}, stream);
    const unsigned vectors = unsigned(std::size_t(M) * N / kPerVector);
    const auto blocks = static_cast<unsigned>(
        std::min<std::size_t>(std::size_t(sms) * kBlocksPerSm, (vectors + kThreads - 1) / kThreads));
    add_bias_kernel<<<blocks, kThreads, 0, stream>>>(Y, bias, vectors, unsigned(N));
    gelu_kernel<<<blocks, kThreads, 0, stream>>>(Y, vectors);
}

}  // namespace

}  // namespace roofline::fusion
