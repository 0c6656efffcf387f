// Hopper's asynchronous warpgroup MMA (wgmma, sm_90a), as lab 06 uses it: four
// consecutive warps (a warpgroup, starting at a warp index divisible by 4) multiply a
// 64 x N tile of A by an N x 16 tile of B, both read from shared memory through
// 64-bit matrix descriptors, into fp32 accumulators spread over the warpgroup's
// registers. The instruction returns at once; commit() closes a group of them and
// wait<n>() waits until at most n groups are still running.
//
// PTX ISA 8.x, "Asynchronous Warpgroup Level Matrix Multiply-Accumulate" (wgmma):
// the matrix descriptor format and the register fragment of the accumulator D.
// Needs -gencode=arch=compute_90a,code=sm_90a.
#pragma once
#include <cstdint>

namespace roofline::wgmma {

// A descriptor for a K-major tile that TMA wrote with CU_TENSOR_MAP_SWIZZLE_128B:
// rows of 64 bf16 (128 bytes), swizzled in atoms of 8 rows (1024 bytes). Fields:
//   bits  0-13  start address >> 4
//   bits 16-29  leading-dimension byte offset >> 4 (unused for swizzled K-major tiles: 1)
//   bits 32-45  stride-dimension byte offset >> 4: from one 8-row atom to the next, 1024
//   bits 62-63  swizzle mode: 1 = 128-byte swizzle
// The tile must start on a 1024-byte boundary. To step along K inside the 128-byte row,
// add the byte offset (32 bytes per k16 step) to the start address: the hardware applies
// the swizzle to the address it computes, just as TMA did when writing.
__device__ inline std::uint64_t sw128_kmajor_descriptor(std::uint32_t smem_byte_address) {
    std::uint64_t descriptor = 0;
    descriptor |= std::uint64_t((smem_byte_address & 0x3FFFF) >> 4);
    descriptor |= std::uint64_t(1) << 16;
    descriptor |= std::uint64_t(1024 >> 4) << 32;
    descriptor |= std::uint64_t(1) << 62;
    return descriptor;
}

// Orders earlier register and shared-memory accesses before the next wgmma reads them.
__device__ inline void fence() { asm volatile("wgmma.fence.sync.aligned;" ::: "memory"); }
__device__ inline void commit() { asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory"); }
template <int kGroupsStillRunning>
__device__ inline void wait() {
    asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(kGroupsStillRunning) : "memory");
}

// D[64][256] (+)= A[64][16] B[16][256], bf16 in, fp32 accumulate; A and B K-major in shared
// memory. accumulate = false overwrites D (the first k step of a tile).
// Thread t of the warpgroup holds, for j in 0..31: d[4j + 0..1] = D[row][8j + 2(t%4) + 0..1]
// and d[4j + 2..3] = D[row + 8][...], with row = 16 (t/32) + (t%32)/4.
__device__ inline void mma_m64n256k16_bf16(float (&d)[128], std::uint64_t a_descriptor, std::uint64_t b_descriptor,
                                           bool accumulate) {
    asm volatile(
        "{\n"
        ".reg .pred accumulate;\n"
        "setp.ne.b32 accumulate, %130, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16\n"
        "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, %96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127},\n"
        "%128, %129, accumulate, 1, 1, 0, 0;\n"
        "}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
          "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
          "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
          "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
          "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
          "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
          "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
          "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]),
          "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]),
          "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]),
          "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]),
          "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]),
          "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]),
          "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]),
          "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]),
          "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
        : "l"(a_descriptor), "l"(b_descriptor), "r"(int(accumulate)));
}

// D[64][128] (+)= A[64][32] B[32][128], e4m3 in, fp32 accumulate (lab 06's FP8 rungs); A and B
// K-major in shared memory (8-bit wgmma takes no other layout: there are no transpose
// immediates for e4m3), 32 e4m3 = 32 bytes along K, so the same 128-byte-swizzled descriptor
// steps by 32 bytes (2 units) per k32 as the bf16 one does per k16. The accumulator keeps
// fewer bits than fp32 between steps (lessons/06-async.md, "FP8"): promote it.
// Thread t holds, for j in 0..15: d[4j + 0..1] = D[row][8j + 2(t%4) + 0..1] and
// d[4j + 2..3] = D[row + 8][...], with row = 16 (t/32) + (t%32)/4.
__device__ inline void mma_m64n128k32_e4m3(float (&d)[64], std::uint64_t a_descriptor, std::uint64_t b_descriptor,
                                           bool accumulate) {
    asm volatile(
        "{\n"
        ".reg .pred accumulate;\n"
        "setp.ne.b32 accumulate, %66, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3\n"
        "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63},\n"
        "%64, %65, accumulate, 1, 1;\n"
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

// Register budgets per warpgroup (sm_90a): the producer gives registers back, the
// consumers take them. The kernel needs __launch_bounds__(threads, 1) for these to act.
template <int kRegisters>
__device__ inline void release_registers() {
    asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(kRegisters));
}
template <int kRegisters>
__device__ inline void claim_registers() {
    asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(kRegisters));
}

// A barrier among the 128 threads of one warpgroup only (named barrier `id`, 1..15; 0 is
// __syncthreads'), so that one consumer warpgroup can sync without stopping the others.
__device__ inline void warpgroup_sync(int id) { asm volatile("bar.sync %0, 128;" ::"r"(id) : "memory"); }

}  // namespace roofline::wgmma
