// Open rung: a bf16 GEMM on Blackwell's tensor cores, of your own design. No TODOs: the contract
// is below, the ideas are in the lesson; the tile, the ring, the MMA shape, one or two SMs per MMA,
// the roles of the warps and the epilogue are yours to choose.
//
// Contract (variant open_tcgen05_gemm in lab.yaml):
//   C[M,N] = A[M,K] Bt[N,K]^T, A and Bt K-major, bf16 in and out, fp32 accumulation
//   (roofline/contract/gemm.cuh: LaunchBf16ABt; the tolerance is lab.yaml's bf16 one). Timed at 8192^3
//   against cuBLAS bf16 in the same run; checked on lab.yaml's verify shapes, multiples of
//   divisible_by {m: 128, n: 256, k: 64}. Launch on `stream`; no synchronization, allocation or
//   host copies. Built for sm_100a only: it runs on a B200 (compute capability 10.0) and nowhere
//   else (lab.yaml `requires`).
//
// What you may use: roofline/ptx/tcgen05.cuh (tensor memory allocation, the MMA and its instruction
// and shared-memory descriptors, commit, tcgen05.ld), roofline/ptx/tma.cuh, roofline/ptx/mbarrier.cuh,
// CUDA's headers and launch attributes. given/tcgen05_gemm_launch.cuh is rung 1's launch of rung
// 1's kernel: a design, not a helper. No library that does the work (grader/README.md, "What a
// kernel file may not do").
//
// Ideas to choose from (lessons/07-tensor-cores.md):
//   §3 tensor memory; §4 tcgen05.mma, one thread and three descriptors; §5 completion on an
//   mbarrier; §6 one CTA of four warps per SM, and why that is fine; §7 two SMs per MMA and
//   multicast: the L2 arithmetic; §9 predicting this GEMM.
//   lessons/06-async.md §4-5 and §7: the ring's depth, warp specialization, a persistent grid.
//
// Full performance marks: lab.yaml's target_fraction of cuBLAS (provisional: no B200 has run this
// lab). Predict first (roofline predict 07-blackwell/open_tcgen05_gemm ...; `roofline calc
// --hardware b200` works on any machine); the debrief compares designs.
#include "roofline/contract/gemm.cuh"
#include "roofline/ptx/mbarrier.cuh"
#include "roofline/ptx/tcgen05.cuh"
#include "roofline/ptx/tma.cuh"

namespace {

void launch_open_tcgen05_gemm(const __nv_bfloat16* A, const __nv_bfloat16* Bt, __nv_bfloat16* C, int M, int N, int K,
                              cudaStream_t stream) {
    // Your kernel(s) and their launch. As given, nothing is launched and C is never written: the
    // grader reports the variant INCORRECT until you write it.
    (void)A, (void)Bt, (void)C, (void)M, (void)N, (void)K, (void)stream;
}

}  // namespace

ROOFLINE_GEMM_ABT_VARIANT(open_tcgen05_gemm, launch_open_tcgen05_gemm);
