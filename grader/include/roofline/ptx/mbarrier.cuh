// The shared-memory barrier (mbarrier) that async copies and async MMAs report to.
// A barrier goes through phases: a phase completes when `expected_arrivals` threads
// have arrived AND every byte announced with arrive_expect_tx has landed. Waiters
// name the phase they wait for by its parity (0, 1, 0, ...): a ring of stages
// flips the parity each time it wraps around. PTX ISA 8.x, "mbarrier".
#pragma once
#include "tma.cuh"

#include <cstdint>

namespace roofline::mbarrier {

using tma::smem_address;

// One thread initialises; then fence_init() and a __syncthreads() before anyone uses it.
__device__ inline void init(std::uint64_t* barrier, std::uint32_t expected_arrivals) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" : : "r"(smem_address(barrier)), "r"(expected_arrivals)
                 : "memory");
}

// Makes the initialisation visible to the TMA unit (the async proxy) too.
__device__ inline void fence_init() { asm volatile("fence.mbarrier_init.release.cluster;" : : : "memory"); }

__device__ inline void arrive(std::uint64_t* barrier) {
    asm volatile("mbarrier.arrive.release.cta.shared::cta.b64 _, [%0];" : : "r"(smem_address(barrier)) : "memory");
}

// Arrives and announces `bytes` that async copies will deliver to this phase.
__device__ inline void arrive_expect_tx(std::uint64_t* barrier, std::uint32_t bytes) {
    asm volatile("mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 _, [%0], %1;"
                 :
                 : "r"(smem_address(barrier)), "r"(bytes)
                 : "memory");
}

// Returns once the phase of parity `phase_parity` has completed. Waiting for parity 1
// on a fresh barrier returns at once: a producer's first pass through an empty ring.
__device__ inline void wait(std::uint64_t* barrier, std::uint32_t phase_parity) {
    std::uint32_t done = 0;
    do {
        asm volatile(
            "{\n"
            ".reg .pred complete;\n"
            "mbarrier.try_wait.parity.acquire.cta.shared::cta.b64 complete, [%1], %2;\n"
            "selp.u32 %0, 1, 0, complete;\n"
            "}\n"
            : "=r"(done)
            : "r"(smem_address(barrier)), "r"(phase_parity)
            : "memory");
    } while (!done);
}

}  // namespace roofline::mbarrier
