// The fusion problems of lab 04. A lab file defines a launch function with one
// of the signatures below and registers it:
//
//     void fused(const __nv_bfloat16* x, __nv_bfloat16* y, float a, float b, float c, std::size_t n,
//                cudaStream_t stream);
//     ROOFLINE_CHAIN_VARIANT(chain_fused, fused);
//
// chain:   y = gelu(x * a + b) * c, with gelu(v) = 0.5 v (1 + tanh(sqrt(2/pi) (v + 0.044715 v^3))),
//          arithmetic in fp32, bf16 in and out.
// rmsnorm: y[r][j] = x[r][j] * rsqrt(mean over j of x[r][j]^2 + kRmsNormEps) * w[j]; x and y are
//          row-major [rows][cols] bf16, w is [cols] bf16; `row_scratch` holds `rows` floats the
//          launch may use between passes (a fused kernel needs none).
// gemm_bias_gelu: Y[M,N] = gelu(A[M,K] B[K,N] + bias[N]), all row-major bf16, fp32 accumulation
//          and epilogue, one rounding to bf16 at the end (the reference's); the same gelu as chain.
// gemm_bare: Y[M,N] = A[M,K] B[K,N], the same GEMM without the epilogue: the time the other two
//          are compared with. Both GEMM ops get M and N multiples of 128 and K of 32.
// Pointers come from cudaMalloc (256-byte aligned). Launch on `stream`; do not
// synchronize, allocate or copy to the host.
#pragma once
#include "variant.hpp"

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstddef>

namespace roofline::fusion {

inline constexpr float kRmsNormEps = 1e-6f;  // rmsnorm's epsilon, as the reference adds it

using ChainLaunch = void (*)(const __nv_bfloat16* x, __nv_bfloat16* y, float a, float b, float c, std::size_t n,
                             cudaStream_t stream);
using RmsNormLaunch = void (*)(const __nv_bfloat16* x, const __nv_bfloat16* w, __nv_bfloat16* y, float* row_scratch,
                               int rows, int cols, cudaStream_t stream);
using GemmBiasGeluLaunch = void (*)(const __nv_bfloat16* A, const __nv_bfloat16* B, const __nv_bfloat16* bias,
                                    __nv_bfloat16* Y, int M, int N, int K, cudaStream_t stream);
using GemmBareLaunch = void (*)(const __nv_bfloat16* A, const __nv_bfloat16* B, __nv_bfloat16* Y, int M, int N, int K,
                                cudaStream_t stream);

bool register_chain(const char* name, ChainLaunch launch, const char* file);
bool register_rmsnorm(const char* name, RmsNormLaunch launch, const char* file);
bool register_gemm_bias_gelu(const char* name, GemmBiasGeluLaunch launch, const char* file);
bool register_gemm_bare(const char* name, GemmBareLaunch launch, const char* file);

// The reference GELU (tanh form), for host and device.
__host__ __device__ inline float gelu_tanh(float v) {
    constexpr float kSqrt2OverPi = 0.7978845608028654f;
    return 0.5f * v * (1.0f + tanhf(kSqrt2OverPi * (v + 0.044715f * v * v * v)));
}

}  // namespace roofline::fusion

#define ROOFLINE_CHAIN_VARIANT(name, launch) ROOFLINE_REGISTER_VARIANT(fusion, register_chain, name, launch)
#define ROOFLINE_RMSNORM_VARIANT(name, launch) ROOFLINE_REGISTER_VARIANT(fusion, register_rmsnorm, name, launch)
#define ROOFLINE_GEMM_BIAS_GELU_VARIANT(name, launch) ROOFLINE_REGISTER_VARIANT(fusion, register_gemm_bias_gelu, name, launch)
#define ROOFLINE_GEMM_BARE_VARIANT(name, launch) ROOFLINE_REGISTER_VARIANT(fusion, register_gemm_bare, name, launch)
