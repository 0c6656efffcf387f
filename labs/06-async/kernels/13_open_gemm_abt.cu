// Open rung: a bf16 GEMM the shape of a linear layer, of your own design. No TODOs: the contract
// is below, the ideas are in the lesson; the tiles, the ring, the roles of the warps, the grid
// and its schedule, the clusters and the epilogue are yours to choose.
//
// Contract (variant open_gemm_abt in lab.yaml):
//   C[M,N] = A[M,K] Bt[N,K]^T, A and Bt K-major, bf16 in and out, fp32 accumulation
//   (roofline/gemm.cuh: LaunchBf16ABt; the tolerance is lab.yaml's bf16 one).
//   Timed at M = 8192, N = 11008, K = 4096 (8192 tokens through a 4096 -> 11008 projection)
//   against cuBLAS bf16 in the same run. N is 43 tiles of 256: the square rungs' tile counts
//   do not carry over, and the last round of tiles is partly empty unless you plan for it.
//   Checked on lab.yaml's GEMM verify shapes that are multiples of divisible_by
//   {m: 256, n: 256, k: 64}. Launch on `stream`; no synchronization, allocation or host copies.
//   Built for sm_90a only (lab.yaml `requires`).
//
// What you may use:
//   - roofline/tma.cuh (tensor maps, box loads and stores), roofline/mbarrier.cuh,
//     roofline/wgmma.cuh (descriptors, fence / commit / wait, the m64nNk16 shapes, setmaxnreg),
//     roofline/cluster.cuh (cluster rank, barriers, TMA multicast, distributed shared memory).
//   - given/stream_k_schedule.cuh (the schedule rung 8 is given: pair order and stream-K tail),
//     if your design fits its assumptions (its first comment states them).
//   - CUDA's headers and launch attributes (cudaLaunchKernelEx for clusters). No library that does the work (grader/README.md, "What a kernel file may
//     not do").
//
// Ideas to choose from (lessons/06-async.md):
//   §2-3 TMA and mbarriers; §4 how deep the ring must be; §5 warp specialization;
//   §6 wgmma; §7 producer, two consumers, persistent grid; §8 clusters and multicast;
//   §10 the ladder, mechanism by mechanism, and what each one removes.
//   Also yours: the tile shape for N = 11008 (43 x 256, or another split of it), and how the
//   last, partial round of tiles is spread over the SMs.
//
// Full performance marks: lab.yaml's target_fraction of cuBLAS. Predict first
// (roofline predict 06-async/open_gemm_abt ...); the debrief compares designs after grading.
#include "roofline/ptx/cluster.cuh"
#include "roofline/contract/gemm.cuh"
#include "roofline/ptx/mbarrier.cuh"
#include "roofline/ptx/tma.cuh"
#include "roofline/ptx/wgmma.cuh"

namespace {

void launch_open_gemm_abt(const __nv_bfloat16* A, const __nv_bfloat16* Bt, __nv_bfloat16* C, int M, int N, int K,
                          cudaStream_t stream) {
    // Your kernel(s) and their launch. As given, nothing is launched and C is never written: the
    // grader reports the variant INCORRECT until you write it.
    (void)A, (void)Bt, (void)C, (void)M, (void)N, (void)K, (void)stream;
}

}  // namespace

ROOFLINE_GEMM_ABT_VARIANT(open_gemm_abt, launch_open_gemm_abt);
