// The gemv family of lab 09: one step of decoding, a weight matrix times one
// (or a few) activation rows. W is [N, K] row-major (the layout of a linear
// layer's weight: row n holds output channel n), x and y are bf16.
//
// gemv:          y[n] = sum_k W[n][k] x[k], W bf16.
// gemv_batched:  Y[m][n] = sum_k W[n][k] X[m][k], X [M, K] and Y [M, N] row-major, W bf16
//                (a skinny GEMM: M rows of activations share one read of W).
// gemv_int8:     y[n] = scale[n] * sum_k W[n][k] x[k], W int8 in [-127, 127], one fp32 scale
//                per output channel (weight-only quantization: x stays bf16).
// gemv_fp8:      the same with W in fp8 e4m3 (__nv_fp8_e4m3) and an fp32 scale per channel.
//
// The reference accumulates in fp64 from the exact weights (int8 and e4m3 values are exact in
// fp32) and compares with the bf16 y: the only rounding the variant must add is its own final
// one, plus its fp32 accumulation order. A lab file defines a launch function and registers it:
//
//     void gemv(const __nv_bfloat16* W, const __nv_bfloat16* x, __nv_bfloat16* y, int N, int K,
//               cudaStream_t stream);
//     ROOFLINE_GEMV_VARIANT(gemv_warp_per_row, gemv);
//
// Pointers come from cudaMalloc (256-byte aligned); a row of W starts 16-byte aligned only when
// K is a multiple of 16 bytes' worth of weights. Launch on `stream`; do not synchronize,
// allocate or copy to the host.
#pragma once
#include "variant.hpp"


#include <cuda_bf16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

#include <cstdint>

namespace roofline::gemv {

using GemvLaunch = void (*)(const __nv_bfloat16* W, const __nv_bfloat16* x, __nv_bfloat16* y, int N, int K,
                            cudaStream_t stream);
using GemvBatchedLaunch = void (*)(const __nv_bfloat16* W, const __nv_bfloat16* X, __nv_bfloat16* Y, int M, int N,
                                   int K, cudaStream_t stream);
using GemvInt8Launch = void (*)(const std::int8_t* W, const float* scale, const __nv_bfloat16* x, __nv_bfloat16* y,
                                int N, int K, cudaStream_t stream);
using GemvFp8Launch = void (*)(const __nv_fp8_e4m3* W, const float* scale, const __nv_bfloat16* x,
                               __nv_bfloat16* y, int N, int K, cudaStream_t stream);

bool register_gemv(const char* name, GemvLaunch launch, const char* file);
bool register_gemv_batched(const char* name, GemvBatchedLaunch launch, const char* file);
bool register_gemv_int8(const char* name, GemvInt8Launch launch, const char* file);
bool register_gemv_fp8(const char* name, GemvFp8Launch launch, const char* file);

}  // namespace roofline::gemv

#define ROOFLINE_GEMV_VARIANT(name, launch) ROOFLINE_REGISTER_VARIANT(gemv, register_gemv, name, launch)
#define ROOFLINE_GEMV_BATCHED_VARIANT(name, launch) ROOFLINE_REGISTER_VARIANT(gemv, register_gemv_batched, name, launch)
#define ROOFLINE_GEMV_INT8_VARIANT(name, launch) ROOFLINE_REGISTER_VARIANT(gemv, register_gemv_int8, name, launch)
#define ROOFLINE_GEMV_FP8_VARIANT(name, launch) ROOFLINE_REGISTER_VARIANT(gemv, register_gemv_fp8, name, launch)
