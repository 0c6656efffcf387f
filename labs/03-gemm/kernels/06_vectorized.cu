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
    // TODO 1: __shared__ __align__(16) float sA[BK][BM] (transposed) and sB[BK][BN].
    // TODO 2: loading: each tile is 256 float4s, one of A and one of B per thread.
    //   A: row t / 2 of the tile, k (t % 2) * 4 .. +3: one float4 load from global, then four
    //      scalar stores sA[k + 0..3][row] (this is where the transpose happens).
    //   B: row t / 32, columns (t % 32) * 4 .. +3: one float4 load, one float4 store to sB.
    //   Load with *reinterpret_cast<const float4*>(&ptr[index]).
    // TODO 3: compute, per kk: two float4 reads of sA[kk][my rows], two of sB[kk][my columns],
    //   then the 64 FMAs of the outer product. Copy the float4 components into small float arrays
    //   (const float rA[8] = {a0.x, ...}) rather than casting a float array to float4*: the cast
    //   can push the array into local memory.
    // TODO 4: store C with float4 stores: two per row of the thread's 8x8 block.
}

void launch_vectorized(const float* A, const float* B, float* C, int M, int N, int K, cudaStream_t stream) {
    dim3 grid(N / BN, M / BM);
    gemm_vectorized<<<grid, kThreads, 0, stream>>>(A, B, C, M, N, K);
}

}  // namespace

ROOFLINE_GEMM_VARIANT(r6_vectorized, launch_vectorized);
