// Rung 4: 1D register blocking. Each thread computes TM = 8 outputs of one
// column of C instead of one. Block tile 64x64, K step 8, 512 threads.
//
// Against rung 3: in the inner loop a thread reads one value of B from shared
// memory into a register and uses it for 8 FMAs. How many shared-memory loads
// per FMA is that, against rung 3's two?
//
// Edges: this rung must take any shape: load zeros outside A and B, skip stores
// outside C.
#include "roofline/contract/gemm.cuh"

namespace {

[[maybe_unused]] constexpr int BM = 64, BN = 64, BK = 8, TM = 8;
constexpr int kThreads = BM * BN / TM;  // 512: one thread per 8x1 strip of C

__global__ __launch_bounds__(kThreads) void gemm_register_1d(const float* A, const float* B, float* C, int M, int N,
                                                             int K) {
    // TODO 1: shared tiles sA[BM][BK] (64 x 8) and sB[BK][BN] (8 x 64).
    // TODO 2: this block's tile starts at row bm = blockIdx.y * BM, column bn = blockIdx.x * BN.
    //   Thread t = threadIdx.x owns column t % BN of the tile and rows (t / BN) * TM .. + TM-1.
    //   A warp is then 32 consecutive columns of the same rows: what does that make the reads of sA?
    // TODO 3: loading: 512 threads, 512 elements per tile: one of A and one of B each. Choose
    //   which thread loads which element so that a warp's 32 loads are consecutive addresses
    //   of global memory (coalesced: a row of each tile is contiguous there). Zero when outside
    //   A or B; a barrier before and after the compute, as in rung 3, and for the same reasons.
    // TODO 4: compute: each of the thread's TM outputs takes the tile's BK products; the point
    //   of the rung is that one value of B, read once from shared memory into a register, serves
    //   all TM of them.
    //   float acc[TM] lives in registers only if every index is a compile-time constant:
    //   fully unroll the loops (#pragma unroll) and never index acc with a runtime value.
    // TODO 5: store the TM results, skipping rows >= M and columns >= N.
}

void launch_register_1d(const float* A, const float* B, float* C, int M, int N, int K, cudaStream_t stream) {
    dim3 grid((N + BN - 1) / BN, (M + BM - 1) / BM);
    gemm_register_1d<<<grid, kThreads, 0, stream>>>(A, B, C, M, N, K);
}

}  // namespace

ROOFLINE_GEMM_VARIANT(r4_register_1d, launch_register_1d);
