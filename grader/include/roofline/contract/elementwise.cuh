// The elementwise problems of labs 00 and 01 (copy, scale, add, fma_chain). A lab file defines a
// launch function with one of the signatures below and registers it:
//
//     template <class T> void copy_naive(const T* x, T* y, std::size_t n, cudaStream_t stream) { ... }
//     ROOFLINE_COPY_VARIANT(copy_naive_fp32, copy_naive<float>);
//     ROOFLINE_COPY_VARIANT(copy_naive_bf16, copy_naive<__nv_bfloat16>);
//
// Arrays are device pointers from cudaMalloc (256-byte aligned), n elements each.
// Launch on `stream`; do not synchronize, allocate, or copy to the host.
#pragma once
#include "variant.hpp"

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include "fma_chain.hpp"

#include <cstddef>

namespace roofline::elementwise {

template <class T>
using CopyLaunch = void (*)(const T* x, T* y, std::size_t n, cudaStream_t stream);  // y = x
template <class T>
using ScaleLaunch = void (*)(const T* x, T* y, float a, std::size_t n, cudaStream_t stream);  // y = a * x
template <class T>
using AddLaunch = void (*)(const T* a, const T* b, T* c, std::size_t n, cudaStream_t stream);  // c = a + b

// Widen to fp32 and round back once: the arithmetic the reference does, given
// to lab kernels so that a bf16 variant can match it.
__device__ inline float to_float(float v) { return v; }
__device__ inline float to_float(__nv_bfloat16 v) { return __bfloat162float(v); }
template <class T> __device__ inline T from_float(float v);
template <> __device__ inline float from_float<float>(float v) { return v; }
template <> __device__ inline __nv_bfloat16 from_float<__nv_bfloat16>(float v) { return __float2bfloat16(v); }

bool register_copy(const char* name, CopyLaunch<float> launch, const char* file);
bool register_copy(const char* name, CopyLaunch<__nv_bfloat16> launch, const char* file);
bool register_scale(const char* name, ScaleLaunch<float> launch, const char* file);
bool register_scale(const char* name, ScaleLaunch<__nv_bfloat16> launch, const char* file);
bool register_add(const char* name, AddLaunch<float> launch, const char* file);
bool register_add(const char* name, AddLaunch<__nv_bfloat16> launch, const char* file);
// y[i] = x[i] after kFmaChainSteps steps of y = fmaf(y, kFmaChainA, kFmaChainB) (fma_chain.hpp).
bool register_fma_chain(const char* name, CopyLaunch<float> launch, const char* file);

}  // namespace roofline::elementwise

#define ROOFLINE_COPY_VARIANT(name, launch) ROOFLINE_REGISTER_VARIANT(elementwise, register_copy, name, launch)
#define ROOFLINE_SCALE_VARIANT(name, launch) ROOFLINE_REGISTER_VARIANT(elementwise, register_scale, name, launch)
#define ROOFLINE_ADD_VARIANT(name, launch) ROOFLINE_REGISTER_VARIANT(elementwise, register_add, name, launch)
#define ROOFLINE_FMA_CHAIN_VARIANT(name, launch) ROOFLINE_REGISTER_VARIANT(elementwise, register_fma_chain, name, launch)
