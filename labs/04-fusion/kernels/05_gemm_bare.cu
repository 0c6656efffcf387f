// Rung 5 (given): the GEMM alone, Y = A B, bf16 in and out, fp32 accumulation.
// This is the given main loop (given/gemm_with_epilogue.cuh: WMMA, a 4-slot
// cp.async ring of 32-deep K tiles, 128 x 256 block tiles one per SM when
// K > 1024, 128 x 128 two per SM when K <= 1024) with the plain epilogue: round each pair of results to
// bf16 and store it. Nothing to fuse here; it is the yardstick for rungs 6 and
// 7, the time a GEMM + bias + GELU would take if the bias and the GELU cost
// nothing.
//
// At 4096^3: 137 GFLOP. Our prediction for this loop after its retiling is in
// labs/04-fusion/README.md; what it measured on the H200 is in
// labs/04-fusion/debrief/gemm_bare.md, for after your own grading. The output it writes, 32 MiB, would take ~8 us at the copy roof on its own: the GEMM is compute-bound by a wide
// margin (~1365 FLOP/byte against a ridge of ~190).
#include "roofline/contract/fusion.cuh"
#include "given/gemm_with_epilogue.cuh"

namespace {

void gemm_bare(const __nv_bfloat16* A, const __nv_bfloat16* B, __nv_bfloat16* Y, int M, int N, int K,
               cudaStream_t stream) {
    roofline::fusion::launch_gemm_with_epilogue(A, B, M, N, K, roofline::fusion::StoreBf16{Y, N}, stream);
}

}  // namespace

ROOFLINE_GEMM_BARE_VARIANT(gemm_bare, gemm_bare);
ROOFLINE_GEMM_BARE_VARIANT(gemm_bare_k512, gemm_bare);  // the same GEMM at 8192 x 8192 x 512
