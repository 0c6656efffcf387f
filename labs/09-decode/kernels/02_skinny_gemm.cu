// Rung 2: the skinny GEMM, Y[M,N] = X[M,K] W[N,K]^T for M = 1..16.   (your file: edit the TODOs)
// M rows of activations (M requests decoded together) share one read of W: 2M
// FLOPs per 2 bytes. Graded against cuBLAS at M = 1, 2, 4, 8 and 16; the goal is
// to match or beat it at every M.
//
// Predict before you grade: `roofline calc --gemm 16,8192,8192 --dtype bf16
// --hardware h200-sxm`. Is M = 16 still memory-bound? Then the second question
// the roofline does not ask: at M = 16, how long do the FMAs take on the CUDA
// cores alone (2 M N K FLOPs at 67 TFLOP/s fp32, the datasheet peak), next to
// reading W? That is why this rung uses the tensor cores (mma.sync m16n8k16;
// roofline/ptx/mma_sync.cuh, lab 03).
//
// The layout trick. In one m16n8k16 mma each lane holds two pairs of consecutive k of each
// of its A rows and of its B column, k 2q, 2q+1 and 2q+8, 2q+9 for lane (g, q) = (lane / 4,
// lane % 4) (the PTX ISA's fragment layout for mma.m16n8k16; mma_sync.cuh's table). A dot
// product does not care in which order k is summed, as long as A and B agree on it: so the
// k a lane's registers stand for may be renumbered, and a lane can take 8 consecutive k of
// its rows (one 16-byte load each) for two mmas instead of the 2 + 2 scattered k the table
// names. 16-byte loads straight from global memory, no shared memory, no shuffles.
#include "roofline/contract/gemv.cuh"
#include "roofline/ptx/mma_sync.cuh"

#include <cstdint>

namespace {

using roofline::gemm::mma::mma_bf16_16816;

constexpr int kWarps = 8;       // per block, splitting K
constexpr int kRows = 16;       // rows of W (outputs n) per block: the mma's M
[[maybe_unused]] constexpr int kUnroll = 4;  // 32-wide k steps a warp loads before it multiplies
constexpr int kMaxM = 16;       // rows of X per launch: two n8 tiles

[[maybe_unused]] __device__ __forceinline__ uint4 load_streaming(const uint4* p) {
    uint4 v;
    asm volatile("ld.global.nc.L1::no_allocate.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                 : "l"(p));
    return v;
}

// kTiles n8 tiles of X rows (1: M <= 8, 2: M <= 16). Requires K % 8 == 0. Block b owns rows
// 16 b .. 16 b + 15 of W; its 8 warps split K.
template <int kTiles>
__global__ __launch_bounds__(kWarps * 32, 4) void skinny_mma_kernel(const __nv_bfloat16* __restrict__ W,
                                                                 const __nv_bfloat16* __restrict__ X,
                                                                 __nv_bfloat16* __restrict__ Y, int M, int N, int K) {
    // TODO 1: which rows of W (the mma's A: the block's 16 outputs) and of X (its B: the tile's
    //         8 rows of activations) this lane's fragments come from, by mma_sync.cuh's table.
    //         Rows past N or past M must feed zeros, not garbage: a zero row adds nothing to any
    //         output, and its results are not stored.
    // TODO 2: the accumulators, one m16n8 tile per n8 tile of X, over the warp's share of K
    //         (the block's kWarps warps split K between them). Each k step of a warp covers 32
    //         consecutive k: 8 for each of the four lanes that share a row, by the renumbering of
    //         the header, and each 16-byte piece becomes the A or B registers of two mmas (which
    //         halves of a piece go to which register follows from the table and the renumbering:
    //         A and B must make the same choice). Issue the loads of kUnroll steps before the
    //         first mma uses them (the bytes in flight); a piece past the row's K / 8 is zeros.
    // TODO 3: the kWarps warps' partial tiles summed into one (through shared memory: they are
    //         in different warps), and each output of the block's tile stored once as bf16 if
    //         it lies inside Y. Which lane's accumulator is which Y[m][n]: the table's C rows are
    //         the outputs n, its columns the activation rows m.
}

// Any K (rows not 16-byte aligned): one warp per row of W, every row of X.
__global__ void skinny_scalar_kernel(const __nv_bfloat16* __restrict__ W, const __nv_bfloat16* __restrict__ X,
                                     __nv_bfloat16* __restrict__ Y, int M, int N, int K) {
    // TODO: the same result for any K, one bf16 at a time: warp n (its global warp index, as
    //       the launch below sizes the grid) takes row n of W and, for every row m of X, their dot
    //       product, reduced over the warp and stored by one lane as Y[m][n].
}

void skinny(const __nv_bfloat16* W, const __nv_bfloat16* X, __nv_bfloat16* Y, int M, int N, int K,
            cudaStream_t stream) {
    if (M <= 0 || N <= 0 || K <= 0) return;
    if (K % 8 != 0) {
        skinny_scalar_kernel<<<(N + 7) / 8, 256, 0, stream>>>(W, X, Y, M, N, K);
        return;
    }
    const int blocks = (N + kRows - 1) / kRows;
    for (int m0 = 0; m0 < M; m0 += kMaxM) {
        const int rows = M - m0 < kMaxM ? M - m0 : kMaxM;
        // TODO: the mma kernel on this slice of up to kMaxM rows of X and Y, with one n8 tile of
        //       X when the slice's rows fit in 8 and two otherwise.
        (void)rows;
        (void)blocks;
    }
}

}  // namespace

ROOFLINE_GEMV_BATCHED_VARIANT(skinny_m1, skinny);
ROOFLINE_GEMV_BATCHED_VARIANT(skinny_m2, skinny);
ROOFLINE_GEMV_BATCHED_VARIANT(skinny_m4, skinny);
ROOFLINE_GEMV_BATCHED_VARIANT(skinny_m8, skinny);
ROOFLINE_GEMV_BATCHED_VARIANT(skinny_m16, skinny);
