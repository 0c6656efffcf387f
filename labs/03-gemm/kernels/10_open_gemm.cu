// Open rung: a bf16 GEMM of your own design. No TODOs: the contract is below, the ideas are in
// the lesson, and the design (tiling, staging, fragment layout, how many warps) is yours.
//
// Contract (variant open_gemm in lab.yaml):
//   C[M,N] = A[M,K] B[K,N], all row-major, __nv_bfloat16 in and out, fp32 accumulation
//   (roofline/gemm.cuh: LaunchBf16; the tolerance is lab.yaml's bf16 one: C rounded to bf16 once).
//   Timed at M = N = K = 4096 against cuBLAS bf16 in the same run. Checked on lab.yaml's verify
//   shapes that are multiples of divisible_by {m: 128, n: 128, k: 32}: K need not be a multiple
//   of 64, and K may be a single tile of 32.
//   Launch on `stream`; no synchronization, allocation or host copies. Any grid, block and
//   dynamic shared memory size (up to the 227 KiB an H200 block may ask for: cudaFuncSetAttribute,
//   as rung 9's launch does).
//
// What you may use:
//   - roofline/mma_sync.cuh: smem_addr, ldmatrix_x4, ldmatrix_x4_trans, mma_bf16_16816 (the
//     fragment layouts are in its comments).
//   - cp.async: your own wrappers (rung 9's skeleton gives three), or roofline/cp_async.cuh
//     (roofline::attention::cp_async_16 / cp_async_commit / cp_async_wait, given for lab 08).
//   - CUDA's own headers. No library that does the work (cuBLAS
//     and co.): the grader refuses the file (grader/README.md, "What a kernel file may not do").
//   - No wgmma or TMA: this lab is built for every GPU the course supports; lab 06 does those.
//
// Ideas to choose from (lessons/03-gemm.md):
//   §2  bytes per FLOP: the block tile sets the traffic to L2 and HBM; the warp tile sets the
//       shared-memory reads per mma.
//   §3  the ladder: shared-memory tiles, register tiles, warp tiles, tensor-core fragments.
//   §4  software pipelining: how many stages, which K step, one barrier per K step or more.
//   §5  low occupancy on purpose: registers for accumulators against warps to hide latency.
//   lessons/05-layouts.md §8-9: swizzles and ldmatrix, for shared tiles free of bank conflicts.
//   Also worth a thought: the order in which blocks walk the output (which tiles share a wave
//   and so their panels of A and B in L2), and how C leaves the block.
//
// Full performance marks: lab.yaml's target_fraction of cuBLAS. Predict first
// (roofline predict 03-gemm/open_gemm ...); the debrief compares designs once you have graded.
#include "roofline/contract/gemm.cuh"
#include "roofline/ptx/mma_sync.cuh"

namespace {

void launch_open_gemm(const __nv_bfloat16* A, const __nv_bfloat16* B, __nv_bfloat16* C, int M, int N, int K,
                      cudaStream_t stream) {
    // Your kernel(s) and their launch. As given, nothing is launched and C is never written: the
    // grader reports the variant INCORRECT until you write it.
    (void)A, (void)B, (void)C, (void)M, (void)N, (void)K, (void)stream;
}

}  // namespace

ROOFLINE_GEMM_VARIANT(open_gemm, launch_open_gemm);
