// The wgmma shapes lab 08's Hopper rung uses (sm_90a), beside wgmma.cuh's m64n256k16:
//   S = Q K^T:  m64n128k16, A (Q) and B (K) both K-major in shared memory;
//   O += P V:   m64n128k16 / m64n64k16 with A (P) in registers, straight from the scores'
//               accumulators, and B (V) N-major: V's rows are keys (the K index of this
//               product) with head_dim (its N index) contiguous, so B is read "transposed".
//
// PTX ISA 8.x, "wgmma.mma_async": the register fragment of A for .m64nNk16 (per warp, the
// m16n8k16 A layout: a[0] = A[g][2c..2c+1], a[1] = A[g+8][2c..], a[2] = A[g][2c+8..],
// a[3] = A[g+8][2c+8..], g = lane/4 + 16 warp, c = lane%4, two bf16 per register, the lower
// column in the low half), the matrix-descriptor format, and the last immediate (imm-trans-b)
// that reads B N-major. The accumulator layout of D is the same as for m64n256k16, so the
// scores' fp32 accumulators for keys 16k..16k+15, rounded to bf16 in pairs, are P's A
// fragment for k16 step k, each thread's from its own scores, with no shuffle (which pairs
// go where follows from the two layouts: lab 08's rung 4 asks for it).
#pragma once
#include <cstdint>

namespace roofline::wgmma {

// A descriptor for an N-major (MN-major) tile that TMA wrote with CU_TENSOR_MAP_SWIZZLE_128B in
// boxes of [rows = K index][64 bf16 of N]: within a box, rows of 128 bytes in 8-row (1024-byte)
// swizzle atoms. CUTLASS's canonical MN-major SW128 layout ((8 x 16 B, n), (8, k)):
//   leading-dimension byte offset: from one 64-wide column block of N to the next (the
//     next box), `next_n_block_bytes`;
//   stride-dimension byte offset: from one 8-row group of K to the next, 1024.
// A k16 step moves the start address by 16 rows = 2048 bytes (two atoms, no swizzle phase).
__device__ inline std::uint64_t sw128_mn_major_descriptor(std::uint32_t smem_byte_address,
                                                          std::uint32_t next_n_block_bytes) {
    std::uint64_t descriptor = 0;
    descriptor |= std::uint64_t((smem_byte_address & 0x3FFFF) >> 4);
    descriptor |= std::uint64_t((next_n_block_bytes & 0x3FFFF) >> 4) << 16;
    descriptor |= std::uint64_t(1024 >> 4) << 32;
    descriptor |= std::uint64_t(1) << 62;
    return descriptor;
}

// D[64][128] (+)= A[64][16] B[16][128]: A and B K-major in shared memory (descriptors), as wgmma.cuh's
// m64n256k16. Thread t holds d[4j + 0..1] = D[row][8j + 2(t%4) + 0..1] and d[4j + 2..3] = D[row + 8][...],
// row = 16 (t/32) + (t%32)/4, for j in 0..15.
__device__ inline void mma_m64n128k16_ss(float (&d)[64], std::uint64_t a_descriptor, std::uint64_t b_descriptor,
                                        bool accumulate) {
    asm volatile(
        "{\n"
        ".reg .pred accumulate;\n"
        "setp.ne.b32 accumulate, %66, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16\n"
        "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63},\n"
        "%64, %65, accumulate, 1, 1, 0, 0;\n"
        "}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
          "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
          "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
          "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
          "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
          "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
          "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
          "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
        : "l"(a_descriptor), "l"(b_descriptor), "r"(int(accumulate)));
}

// D[64][128] += A[64][16] B[16][128]: A from registers (a[4], the layout below), B in shared memory
// N-major ("transposed": the N index contiguous, as V's head_dim is), described by
// sw128_mn_major_descriptor. Always accumulates.
__device__ inline void mma_m64n128k16_rs_bt(float (&d)[64], const std::uint32_t (&a)[4], std::uint64_t b_descriptor) {
    asm volatile(
        "{\n"
        ".reg .pred accumulate;\n"
        "setp.ne.b32 accumulate, %69, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16\n"
        "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63},\n"
        "{%64, %65, %66, %67}, %68, accumulate, 1, 1, 1;\n"
        "}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
          "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
          "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
          "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
          "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
          "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
          "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
          "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b_descriptor), "r"(1));
}

// D[64][64] += A[64][16] B[16][64]: A from registers (a[4], the layout below), B in shared memory
// N-major ("transposed": the N index contiguous, as V's head_dim is), described by
// sw128_mn_major_descriptor. Always accumulates.
__device__ inline void mma_m64n64k16_rs_bt(float (&d)[32], const std::uint32_t (&a)[4], std::uint64_t b_descriptor) {
    asm volatile(
        "{\n"
        ".reg .pred accumulate;\n"
        "setp.ne.b32 accumulate, %37, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16\n"
        "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31},\n"
        "{%32, %33, %34, %35}, %36, accumulate, 1, 1, 1;\n"
        "}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
          "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
          "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
          "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b_descriptor), "r"(1));
}

}  // namespace roofline::wgmma

namespace roofline::wgmma {

// Named barriers between warpgroups (PTX "bar.sync" / "bar.arrive"; id 1..15, 0 is
// __syncthreads'). `threads` counts every thread that takes part: with two warpgroups
// taking turns, 256 (the 128 that wait and the 128 that only arrive). Lab 08's rung 4
// uses a pair of them to make its two consumer warpgroups issue their matmuls in turn.
__device__ inline void named_barrier_sync(int id, int threads) {
    asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(threads) : "memory");
}
__device__ inline void named_barrier_arrive(int id, int threads) {
    asm volatile("bar.arrive %0, %1;" ::"r"(id), "r"(threads) : "memory");
}

}  // namespace roofline::wgmma

namespace roofline::wgmma {

// Pins registers that an in-flight wgmma reads or writes to this point of the program: the
// compiler may not move arithmetic on them across it. Put it after wait<n>() on the
// accumulators that wait covers, so that no rescale of O floats above the wait.
template <int N>
__device__ inline void fence_operands(float (&registers)[N]) {
#pragma unroll
    for (int i = 0; i < N; ++i) asm volatile("" : "+f"(registers[i])::"memory");
}

}  // namespace roofline::wgmma
