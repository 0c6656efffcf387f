// The transpose problem of lab 05: y[c][r] = x[r][c] for x a row-major [rows][cols]
// array and y a row-major [cols][rows] one, fp32 or bf16, bit for bit. A lab file
// defines a launch function with the signature below and registers it:
//
//     template <class T> void launch_naive(const T* x, T* y, int rows, int cols, cudaStream_t stream);
//     ROOFLINE_TRANSPOSE_VARIANT(transpose_naive_fp32, launch_naive<float>);
//
// Pointers come from cudaMalloc (256-byte aligned). Launch on `stream`; do not
// synchronize, allocate or copy to the host.
#pragma once
#include "variant.hpp"


#include <cuda_bf16.h>
#include <cuda_runtime.h>

namespace roofline::transpose {

template <class T>
using TransposeLaunch = void (*)(const T* x, T* y, int rows, int cols, cudaStream_t stream);

bool register_transpose(const char* name, TransposeLaunch<float> launch, const char* file);
bool register_transpose(const char* name, TransposeLaunch<__nv_bfloat16> launch, const char* file);

}  // namespace roofline::transpose

#define ROOFLINE_TRANSPOSE_VARIANT(name, launch) ROOFLINE_REGISTER_VARIANT(transpose, register_transpose, name, launch)
