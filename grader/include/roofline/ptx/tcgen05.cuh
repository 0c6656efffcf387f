// PTX wrappers for Blackwell's fifth-generation tensor cores (tcgen05, sm_100a), as lab 07
// uses them: given, not part of the exercise. What the lab teaches is what goes INTO these
// instructions (the instruction descriptor, the shared-memory matrix descriptors, the
// tensor-memory addresses) and the order they must come in; these are the instructions.
//
// PTX ISA 8.7+, chapter "TensorCore 5th Generation Family Instructions" (tcgen05):
//   "Tensor Memory" (addresses: lane in bits 31-16, column in bits 15-0),
//   "tcgen05.alloc / dealloc / relinquish_alloc_permit", "tcgen05.mma",
//   "tcgen05.commit", "tcgen05.ld", "tcgen05.wait", and "Memory consistency model for
//   tcgen05 instructions" (the fence::before_thread_sync / after_thread_sync pairs).
// Every instruction here exists only for the arch-specific target: compile with
// -gencode=arch=compute_100a,code=sm_100a.
#pragma once
#include <cstdint>

namespace roofline::tcgen05 {

// ---- Tensor memory (TMEM): 128 lanes x 512 columns of 32-bit cells per SM ----------------

// One whole warp allocates `columns` (a power of two, 32..512) and the hardware writes the
// base address to the shared-memory word at `result_smem`. Lane 0 / column base.
__device__ inline void alloc(std::uint32_t result_smem, std::uint32_t columns) {
    asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], %1;" : : "r"(result_smem),
                 "r"(columns)
                 : "memory");
}

// After its allocation, a CTA gives up the right to allocate again, so that a CTA that is
// blocked in alloc on this SM need not wait for this one to finish.
__device__ inline void relinquish_alloc_permit() {
    asm volatile("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;" : : : "memory");
}

// The same warp that allocated frees, with the same column count, before the CTA exits.
__device__ inline void dealloc(std::uint32_t tmem_address, std::uint32_t columns) {
    asm volatile("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, %1;" : : "r"(tmem_address), "r"(columns)
                 : "memory");
}

// tcgen05 operations are asynchronous: a thread barrier alone does not order them. Put
// before_thread_sync before a __syncthreads / mbarrier arrive that publishes tcgen05 work,
// and after_thread_sync after the __syncthreads / mbarrier wait that observes it.
__device__ inline void fence_before_thread_sync() {
    asm volatile("tcgen05.fence::before_thread_sync;" : : : "memory");
}
__device__ inline void fence_after_thread_sync() {
    asm volatile("tcgen05.fence::after_thread_sync;" : : : "memory");
}

// ---- The MMA: issued by ONE thread, operands from shared memory, accumulator in TMEM ------

// D[tmem] (+)= A[smem] * B[smem]^T for one M x N x 16 step (kind::f16: bf16 or fp16 inputs).
// a_desc, b_desc: shared-memory matrix descriptors; idesc: the instruction descriptor (types,
// M, N, majorness); accumulate = false overwrites D (the first K step), true adds to it.
__device__ inline void mma_f16(std::uint32_t d_tmem, std::uint64_t a_desc, std::uint64_t b_desc, std::uint32_t idesc,
                               bool accumulate) {
    asm volatile(
        "{\n"
        ".reg .pred accumulate;\n"
        "setp.ne.b32 accumulate, %4, 0;\n"
        "tcgen05.mma.cta_group::1.kind::f16 [%0], %1, %2, %3, accumulate;\n"
        "}\n"
        :
        : "r"(d_tmem), "l"(a_desc), "l"(b_desc), "r"(idesc), "r"(std::uint32_t(accumulate))
        : "memory");
}

// Arrive (once) on the mbarrier at `barrier_smem` when every tcgen05.mma this thread issued
// so far has completed: their shared-memory operands have been read and D is written.
// Implies tcgen05.fence::before_thread_sync.
__device__ inline void commit(std::uint32_t barrier_smem) {
    asm volatile("tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%0];" : : "r"(barrier_smem)
                 : "memory");
}

// ---- Reading the accumulator out: TMEM -> registers ------------------------------------

// Warp w of a CTA may read TMEM lanes 32*(w%4) .. 32*(w%4)+31 only. With shape 32x32b and
// .x32, lane i of the warp gets 32 consecutive 32-bit columns of TMEM lane (base lane + i),
// starting at the column in `tmem_address`. The load is asynchronous; tcgen05.wait::ld in the
// same asm statement makes the registers valid on return (two statements would let the
// compiler move a use of the registers above the wait).
__device__ inline void ld_32x32b_x32(std::uint32_t tmem_address, std::uint32_t (&r)[32]) {
    asm volatile(
        "tcgen05.ld.sync.aligned.32x32b.x32.b32 "
        "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
        "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, [%32];\n"
        "tcgen05.wait::ld.sync.aligned;"
        : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]), "=r"(r[4]), "=r"(r[5]), "=r"(r[6]), "=r"(r[7]),
          "=r"(r[8]), "=r"(r[9]), "=r"(r[10]), "=r"(r[11]), "=r"(r[12]), "=r"(r[13]), "=r"(r[14]), "=r"(r[15]),
          "=r"(r[16]), "=r"(r[17]), "=r"(r[18]), "=r"(r[19]), "=r"(r[20]), "=r"(r[21]), "=r"(r[22]), "=r"(r[23]),
          "=r"(r[24]), "=r"(r[25]), "=r"(r[26]), "=r"(r[27]), "=r"(r[28]), "=r"(r[29]), "=r"(r[30]), "=r"(r[31])
        : "r"(tmem_address)
        : "memory");
}

}  // namespace roofline::tcgen05
