// Helpers for lab 08's fused rungs, given (lab 03 had you write them): cp.async copies
// global -> shared without a register stop, 16 bytes a thread, with zero fill for the rows
// past the end of the sequence, and the two bf16 packings the fragments need.
#pragma once
#include <cuda_bf16.h>

#include <cstdint>

namespace roofline::attention {

// 16 bytes from global `src` to shared `dst`; when `valid` is false, 16 zero bytes instead
// (src-size 0: nothing is read, so `src` only has to be a legal address).
__device__ inline void cp_async_16(void* dst, const void* src, bool valid) {
    const auto shared = static_cast<std::uint32_t>(__cvta_generic_to_shared(dst));
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(shared), "l"(src), "r"(valid ? 16 : 0)
                 : "memory");
}
__device__ inline void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
// Waits until at most `kPending` of this thread's committed groups are still in flight.
template <int kPending>
__device__ inline void cp_async_wait() {
    asm volatile("cp.async.wait_group %0;\n" ::"n"(kPending) : "memory");
}

// Two floats as one register of two bf16 (lo in the low half), the A-fragment element pair.
__device__ inline std::uint32_t pack_bf16x2(float lo, float hi) {
    __nv_bfloat162 pair = __floats2bfloat162_rn(lo, hi);
    return *reinterpret_cast<std::uint32_t*>(&pair);
}
// Two bf16 from shared memory as one register (lo in the low half).
__device__ inline std::uint32_t pack_bf16x2(__nv_bfloat16 lo, __nv_bfloat16 hi) {
    __nv_bfloat162 pair{lo, hi};
    return *reinterpret_cast<std::uint32_t*>(&pair);
}

}  // namespace roofline::attention
