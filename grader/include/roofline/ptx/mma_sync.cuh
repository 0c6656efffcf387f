// PTX wrappers for the tensor-core rungs of lab 03 (8 and 9): given, not part
// of the exercise. What the rungs teach is where each lane's addresses and
// fragments come from; these are the instructions they feed (lab 10's
// reference decode attention uses the two mma forms too).
#pragma once
#include <cstdint>

namespace roofline::gemm::mma {

// A generic pointer into shared memory as the 32-bit address ldmatrix and cp.async take.
__device__ inline std::uint32_t smem_addr(const void* p) {
    return static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
}

// Four 8x8 b16 matrices. Lanes 8j .. 8j+7 give the addresses of the 8 rows (16 bytes each) of
// matrix j; afterwards lane l holds, of each matrix, row l/4, elements 2*(l%4) and 2*(l%4)+1.
__device__ inline void ldmatrix_x4(std::uint32_t (&r)[4], std::uint32_t addr) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr)
                 : "memory");
}

// The same, each 8x8 matrix transposed on the way: lane l holds column l/4, rows 2*(l%4) and +1.
__device__ inline void ldmatrix_x4_trans(std::uint32_t (&r)[4], std::uint32_t addr) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr)
                 : "memory");
}

// d += a * b on one 16x8x16 tile, bf16 in, fp32 accumulate. With g = lane / 4, q = lane % 4:
//   a[0]: A[g][2q, 2q+1]   a[1]: A[g+8][2q, 2q+1]   a[2]: A[g][2q+8, +9]   a[3]: A[g+8][2q+8, +9]
//   b0:   B[2q, 2q+1][g]   b1:   B[2q+8, 2q+9][g]
//   d[0], d[1]: C[g][2q, 2q+1]                       d[2], d[3]: C[g+8][2q, 2q+1]
__device__ inline void mma_bf16_16816(float (&d)[4], const std::uint32_t (&a)[4], std::uint32_t b0, std::uint32_t b1) {
    asm("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
        "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

// The same tile with fp16 inputs (fragments laid out as above), fp32 accumulate.
__device__ inline void mma_f16_16816(float (&d)[4], const std::uint32_t (&a)[4], std::uint32_t b0, std::uint32_t b1) {
    asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
        "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

}  // namespace roofline::gemm::mma
