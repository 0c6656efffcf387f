// Rung 6: vectorized memory access. Same tiling as rung 5 (128x128 block tile,
// K step 8, 8x8 outputs per thread); every load and store becomes 16 bytes
// wide (float4), and A is stored TRANSPOSED in shared memory, sA[k][m], so that
// the 8 values of A a thread needs at step kk are contiguous.
//
// Count the load instructions per thread per k step against rung 5 (global and
// shared), and what share of the instruction stream is now FMA.
//
// Shapes: divisible_by {m: 128, n: 128, k: 8}. Pointers from cudaMalloc are
// 256-byte aligned, and with K and N multiples of 8 every float4 you form below
// is 16-byte aligned.
#include "roofline/contract/gemm.cuh"

namespace {

[[maybe_unused]] constexpr int BM = 128, BN = 128, BK = 8, TM = 8, TN = 8;
constexpr int kThreads = (BM / TM) * (BN / TN);  // 256

__global__ __launch_bounds__(kThreads, 2) void gemm_vectorized(const float* A, const float* B, float* C, int M, int N,
                                                               int K) {
    // TODO 1: the shared tiles: A's transposed (k-major: for each k, the tile's BM rows in a
    //   row), B's as in rung 5; both 16-byte aligned, since every access below is a float4.
    // TODO 2: loading: each tile is 256 float4s (4 consecutive floats of a row of A or B in
    //   global memory), one of A and one of B per thread. B's go to sB as they are. A's four
    //   floats are four consecutive k of one row m: in the transposed sA they belong to four
    //   different rows, so they are four scalar stores (this is where the transpose happens).
    // TODO 3: compute, per k step: the thread's 8 values of A are now contiguous in sA, and its
    //   8 of B in sB: two float4 reads of each, then the 64 FMAs of the outer product. Copy the
    //   float4 components into small float arrays rather than casting a float array to float4*:
    //   the cast can push the array into local memory.
    // TODO 4: store C with float4 stores: each row of the thread's 8x8 block is 8 consecutive
    //   floats of C.
}

void launch_vectorized(const float* A, const float* B, float* C, int M, int N, int K, cudaStream_t stream) {
    dim3 grid(N / BN, M / BM);
    gemm_vectorized<<<grid, kThreads, 0, stream>>>(A, B, C, M, N, K);
}

}  // namespace

ROOFLINE_GEMM_VARIANT(r6_vectorized, launch_vectorized);
