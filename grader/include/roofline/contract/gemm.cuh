// The GEMM problem of labs 03, 04, 06 and 07: C[M,N] = A[M,K] * B[K,N], all row-major
// (labs 06-07 take B transposed: op gemm_abt below).
// A lab file defines a launch function with one of the signatures below and
// registers it:
//
//     void launch_naive(const float* A, const float* B, float* C, int M, int N, int K, cudaStream_t stream);
//     ROOFLINE_GEMM_VARIANT(01_naive, launch_naive);
//
// fp32 rungs: float in, float out, fp32 arithmetic (no TF32).
// bf16 rungs: __nv_bfloat16 in, fp32 accumulation, __nv_bfloat16 out.
// Pointers come from cudaMalloc (256-byte aligned). Launch on `stream`; do not
// synchronize, allocate or copy to the host. A variant that needs M, N or K to
// be multiples of its tile says so in lab.yaml (`divisible_by`); the grader
// then never hands it other shapes.
#pragma once
#include "variant.hpp"

#include <cuda_bf16.h>
#include <cuda_runtime.h>

namespace roofline::gemm {

using LaunchFp32 = void (*)(const float* A, const float* B, float* C, int M, int N, int K, cudaStream_t stream);
using LaunchBf16 = void (*)(const __nv_bfloat16* A, const __nv_bfloat16* B, __nv_bfloat16* C, int M, int N, int K,
                            cudaStream_t stream);

// Op `gemm_abt` (labs 06-07, tensor-core GEMMs fed by TMA): C = A Bt^T, with B given
// transposed as Bt[N,K] row-major, the layout of a linear layer's weight. Both operands
// are then K-major (K contiguous), the layout wgmma and tcgen05 read from shared memory
// without a transpose. Same types as LaunchBf16; register with ROOFLINE_GEMM_ABT_VARIANT.
using LaunchBf16ABt = void (*)(const __nv_bfloat16* A, const __nv_bfloat16* Bt, __nv_bfloat16* C, int M, int N,
                               int K, cudaStream_t stream);

bool register_gemm(const char* name, LaunchFp32 launch, const char* file);
bool register_gemm(const char* name, LaunchBf16 launch, const char* file);
bool register_gemm_abt(const char* name, LaunchBf16ABt launch, const char* file);

}  // namespace roofline::gemm

#define ROOFLINE_GEMM_VARIANT(name, launch) ROOFLINE_REGISTER_VARIANT(gemm, register_gemm, name, launch)

#define ROOFLINE_GEMM_ABT_VARIANT(name, launch) ROOFLINE_REGISTER_VARIANT(gemm, register_gemm_abt, name, launch)
