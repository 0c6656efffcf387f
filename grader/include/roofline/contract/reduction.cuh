// The row-reduction problem of lab 06: sums[r] = sum over c of x[r][c], x a row-major
// [rows][cols] bf16 array, each sum accumulated and returned in fp32. A lab file
// defines a launch function with the signature below and registers it:
//
//     void launch_ring(const __nv_bfloat16* x, float* sums, int rows, int cols, cudaStream_t stream);
//     ROOFLINE_ROW_SUM_VARIANT(row_sum_tma_ring, launch_ring);
//
// Pointers come from cudaMalloc (256-byte aligned). Launch on `stream`; do not
// synchronize, allocate or copy to the host.
#pragma once
#include "variant.hpp"

#include <cuda_bf16.h>
#include <cuda_runtime.h>

namespace roofline::reduction {

using RowSumLaunch = void (*)(const __nv_bfloat16* x, float* sums, int rows, int cols, cudaStream_t stream);

bool register_row_sum(const char* name, RowSumLaunch launch, const char* file);

// The sum, in fp32, of the 8 bf16 in one 16-byte load (a uint4 read from x or from a tile).
__device__ inline float sum_of_8_bf16(uint4 packed) {
    const __nv_bfloat162* pairs = reinterpret_cast<const __nv_bfloat162*>(&packed);
    float sum = 0;
    for (int i = 0; i < 4; ++i) {
        float2 pair = __bfloat1622float2(pairs[i]);
        sum += pair.x + pair.y;
    }
    return sum;
}

}  // namespace roofline::reduction

#define ROOFLINE_ROW_SUM_VARIANT(name, launch) ROOFLINE_REGISTER_VARIANT(reduction, register_row_sum, name, launch)
