// Rung 5: 2D register blocking. Each thread computes an 8x8 block of C: per k
// step, 8 values of A and 8 of B in registers feed 8 x 8 = 64 FMAs (an outer
// product). Block tile 128x128, K step 8, 256 threads.
//
// Against rung 4: count the shared-memory loads per FMA, and the global bytes
// per FLOP of a 128x128 tile against a 64x64 one. 64 accumulators per thread
// need ~100 registers: how many blocks fit on an SM (65536 registers)?
//
// Shapes: lab.yaml declares divisible_by {m: 128, n: 128, k: 8} for this rung,
// so you may assume M % 128 == 0, N % 128 == 0, K % 8 == 0 (no edge checks).
#include "roofline/contract/gemm.cuh"

namespace {

[[maybe_unused]] constexpr int BM = 128, BN = 128, BK = 8, TM = 8, TN = 8;
constexpr int kThreads = (BM / TM) * (BN / TN);  // 256

__global__ __launch_bounds__(kThreads, 2) void gemm_register_2d(const float* A, const float* B, float* C, int M, int N,
                                                                int K) {
    // TODO 1: shared tiles sA[BM][BK] and sB[BK][BN].
    // TODO 2: each thread owns one 8x8 block of the 128x128 tile (16 x 16 threads' blocks tile
    //   it); the block's own strips of A and B and its tile of C follow from blockIdx.
    // TODO 3: loading: 1024 elements of each tile, 256 threads: 4 of A and 4 of B per thread.
    //   Split them so that a warp's 32 loads of B are 32 consecutive floats (coalesced), and
    //   those of A as few lines as the 8-wide tile allows.
    // TODO 4: per k step the outer product: the thread's 8 values of A and 8 of B (one column
    //   of sA, one row of sB) into registers, then 64 FMAs into its 8x8 accumulators. Fully
    //   unrolled, with compile-time indices only, so that the accumulators and the 16 values
    //   stay in registers (compile with -Xptxas -v and check for "spill").
    // TODO 5: store the 8x8 block of C.
}

void launch_register_2d(const float* A, const float* B, float* C, int M, int N, int K, cudaStream_t stream) {
    dim3 grid(N / BN, M / BM);
    gemm_register_2d<<<grid, kThreads, 0, stream>>>(A, B, C, M, N, K);
}

}  // namespace

ROOFLINE_GEMM_VARIANT(r5_register_2d, launch_register_2d);
