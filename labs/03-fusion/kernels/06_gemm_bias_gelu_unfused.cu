// Rung 6 (given): Y = gelu(A B + bias) as three kernels, the way it runs when
// each step is its own library call (PyTorch eager: y = x @ w; y += b;
// y = gelu(y, approximate="tanh")):
//     1. the GEMM of rung 5, writing Y = A B in bf16;
//     2. a bias kernel: Y[r][c] += bias[c], reading Y and writing it back;
//     3. a GELU kernel: Y = gelu(Y), reading Y and writing it back.
// Kernels 2 and 3 are good elementwise kernels (16-byte accesses of 8 bf16, a
// grid-stride loop, 8 blocks of 512 threads per SM), so each runs near the
// memory roof. What they cost is the bytes: each reads and writes the whole
// output, 4mn bytes, and the intermediate is rounded to bf16 twice on the way.
//
// At 4096^3: Y is 32 MiB, so each extra kernel moves 64 MiB, ~16 us at ~4.2
// TB/s, plus a launch. Expect rung 5's time (~302 us with rung 9's main loop)
// + ~2 x 16 us + launch gaps, about 335 us: 1.1x rung 5. Rung 7 moves the bias and the GELU into the
// GEMM's epilogue, where the two passes cost no bytes at all.
//
// Needs N to be a multiple of 8 (the GEMM already needs 128): each 16-byte
// vector of Y then lies in one row.
#include "roofline/fusion.cuh"
#include "roofline/gemm_with_epilogue.cuh"

#include <algorithm>
#include <cstdint>

namespace {

constexpr int kThreads = 512;
constexpr int kPerVector = 8;  // bf16 per 16-byte vector

// Y[r][c] += bias[c], in place; `vectors` = M * N / 8 (< 2^28: the problem keeps M * N < 2^31).
__global__ void add_bias_kernel(__nv_bfloat16* Y, const __nv_bfloat16* bias, unsigned vectors, unsigned n) {
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
    auto* y4 = reinterpret_cast<uint4*>(Y);
    for (unsigned v = blockIdx.x * blockDim.x + threadIdx.x; v < vectors; v += gridDim.x * blockDim.x) {
        uint4 packed = y4[v];
        auto* y = reinterpret_cast<__nv_bfloat162*>(&packed);
#pragma unroll
        for (int j = 0; j < kPerVector / 2; ++j) {
            const float2 yf = __bfloat1622float2(y[j]);
            y[j] = __floats2bfloat162_rn(roofline::fusion::gelu_tanh(yf.x), roofline::fusion::gelu_tanh(yf.y));
        }
        y4[v] = packed;
    }
}

void gemm_bias_gelu_unfused(const __nv_bfloat16* A, const __nv_bfloat16* B, const __nv_bfloat16* bias,
                            __nv_bfloat16* Y, int M, int N, int K, cudaStream_t stream) {
    static int sms = 0;
    if (sms == 0) {
        int device = 0;
        cudaGetDevice(&device);
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    }
    roofline::fusion::launch_gemm_with_epilogue(A, B, M, N, K, roofline::fusion::StoreBf16{Y, N}, stream);
    const unsigned vectors = unsigned(std::size_t(M) * N / kPerVector);
    const auto blocks = static_cast<unsigned>(std::min<std::size_t>(std::size_t(sms) * 8, (vectors + kThreads - 1) / kThreads));
    add_bias_kernel<<<blocks, kThreads, 0, stream>>>(Y, bias, vectors, unsigned(N));
    gelu_kernel<<<blocks, kThreads, 0, stream>>>(Y, vectors);
}

}  // namespace

ROOFLINE_GEMM_BIAS_GELU_VARIANT(gemm_bias_gelu_unfused, gemm_bias_gelu_unfused);
ROOFLINE_GEMM_BIAS_GELU_VARIANT(gemm_bias_gelu_unfused_k512, gemm_bias_gelu_unfused);  // at 8192 x 8192 x 512
