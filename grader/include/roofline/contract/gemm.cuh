// The GEMM problem of labs 03, 04, 06 and 07: C[M,N] = A[M,K] * B[K,N], all row-major
// (labs 06-07 take B transposed: op gemm_abt below; lab 06's FP8 rungs: ops gemm_fp8*).
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
#include <cuda_fp8.h>
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

// Ops `gemm_fp8` and `gemm_fp8_block_scaled` (lab 06's FP8 rungs): C = scale * (A Bt^T),
// A[M,K] and Bt[N,K] row-major e4m3 (both K-major, as 8-bit wgmma requires), fp32
// accumulation, C[M,N] bf16. K is a multiple of 128; M and N are any size.
//   gemm_fp8: scale_a and scale_b each point to ONE float (per-tensor scales, in device
//     memory as cuBLASLt takes them): C[m][n] = scale_a[0] * scale_b[0] * sum_k A[m][k] Bt[n][k].
//   gemm_fp8_block_scaled (DeepSeek-V3's recipe): scale_a holds one float per row of A per
//     128-wide K block, stored K-block-major: scale_a[kb * M + m] (the rows of one K block
//     are contiguous, so that a warp's rows read one line); scale_b one float per 128 x 128
//     block of Bt: scale_b[nb * (K / 128) + kb], nb = n / 128 (ceil(N / 128) block rows).
//     C[m][n] = sum_kb scale_a[kb * M + m] * scale_b[(n / 128) * (K / 128) + kb]
//                      * sum_{k in block kb} A[m][k] Bt[n][k].
// Register with ROOFLINE_GEMM_FP8_VARIANT or ROOFLINE_GEMM_FP8_BLOCK_SCALED_VARIANT.
using LaunchFp8 = void (*)(const __nv_fp8_e4m3* A, const __nv_fp8_e4m3* Bt, const float* scale_a,
                           const float* scale_b, __nv_bfloat16* C, int M, int N, int K, cudaStream_t stream);
inline constexpr int kFp8ScaleBlock = 128;  // the K (and Bt row) extent one block scale covers

bool register_gemm(const char* name, LaunchFp32 launch, const char* file);
bool register_gemm(const char* name, LaunchBf16 launch, const char* file);
bool register_gemm_abt(const char* name, LaunchBf16ABt launch, const char* file);
bool register_gemm_fp8(const char* name, LaunchFp8 launch, const char* file);
bool register_gemm_fp8_block_scaled(const char* name, LaunchFp8 launch, const char* file);

}  // namespace roofline::gemm

#define ROOFLINE_GEMM_VARIANT(name, launch) ROOFLINE_REGISTER_VARIANT(gemm, register_gemm, name, launch)

#define ROOFLINE_GEMM_ABT_VARIANT(name, launch) ROOFLINE_REGISTER_VARIANT(gemm, register_gemm_abt, name, launch)

#define ROOFLINE_GEMM_FP8_VARIANT(name, launch) ROOFLINE_REGISTER_VARIANT(gemm, register_gemm_fp8, name, launch)

#define ROOFLINE_GEMM_FP8_BLOCK_SCALED_VARIANT(name, launch) \
    ROOFLINE_REGISTER_VARIANT(gemm, register_gemm_fp8_block_scaled, name, launch)
