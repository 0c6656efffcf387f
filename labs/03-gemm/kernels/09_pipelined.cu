// Rung 9: a multi-stage cp.async pipeline over swizzled shared memory. The
// same mma/ldmatrix inner loop as rung 8, on bigger tiles: block 128x256, K
// step 64, 8 warps (2 x 4) of 64x64, so 4 x 8 mma tiles per warp and k16 step
// (four k16 steps per K step) fed by 4 ldmatrix.x4 (A) and 4 ldmatrix.x4.trans
// (B). Two changes:
//
// 1. Software pipelining: shared memory holds kStages = 3 tiles of A and B;
//    cp.async copies global -> shared without passing through registers, so
//    tiles kt+1 and kt+2 are in flight while the warps compute tile kt.
//    Fragments are double-buffered in registers: the ldmatrix of the next k16
//    step is issued before the mma of the current one. One barrier per K step:
//    a K step of 64 rather than 32 halves the barriers, each of which stops
//    all eight warps of the SM at once.
// 2. An XOR swizzle of the 16-byte chunks of each tile, so that ldmatrix is
//    free of bank conflicts:
//      A tile [128][64] bf16, rows of 8 chunks:  physical chunk = chunk ^ (row % 8)
//      B tile [64][256] bf16, rows of 32 chunks: physical chunk = chunk ^ (row % 8)
//
// Target: >= 50% of cuBLAS bf16 at 4096^3.
//
// Shapes: divisible_by {m: 128, n: 128, k: 32}. K is a multiple of 32, not of
// BK = 64: the last K tile may be half full (zero-fill its missing half, see
// TODO 3), and K may be a single tile (K = 32), fewer tiles than pipeline
// stages: the prologue must cope. N need not be a multiple of BN = 256: in the
// last block column the upper 128 columns must be neither loaded nor stored.
#include "roofline/contract/gemm.cuh"
#include "roofline/ptx/mma_sync.cuh"

#include <cstdint>

namespace {

using namespace roofline::gemm::mma;  // smem_addr, ldmatrix_x4(_trans), mma_bf16_16816

constexpr int BM = 128, BN = 256, BK = 64, kStages = 3;
[[maybe_unused]] constexpr int WM = 64, WN = 64;      // 2 x 4 warps
[[maybe_unused]] constexpr int MI = WM / 16, NI = WN / 8;  // 4 x 8 mma tiles per warp
[[maybe_unused]] constexpr int kGroupM = 16;          // block rows per rasterization group
constexpr int kThreads = 256;
constexpr int kSmemBytes = kStages * (BM * BK + BK * BN) * int(sizeof(__nv_bfloat16));  // 144 KiB

// 16 bytes global -> shared, asynchronously; .cg: cached in L2 only. Only the first src_bytes
// (16 or 0) are read; the rest of the 16 are filled with zeros.
[[maybe_unused]] __device__ inline void cp_async_16(std::uint32_t dst, const void* src, std::uint32_t src_bytes) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(src_bytes) : "memory");
}
// Closes the group of this thread's cp.async issued since the last commit.
[[maybe_unused]] __device__ inline void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
// Waits until at most kPending of this thread's committed groups are still in flight.
template <int kPending>
[[maybe_unused]] __device__ inline void cp_async_wait() {
    asm volatile("cp.async.wait_group %0;\n" ::"n"(kPending) : "memory");
}

__global__ __launch_bounds__(kThreads, 1) void gemm_pipelined(const __nv_bfloat16* A, const __nv_bfloat16* B,
                                                              __nv_bfloat16* C, int M, int N, int K) {
    // TODO 0: which tile? The grid is 1-D: M/BM * ceil(N/BN) blocks. Rasterize in groups of
    //   kGroupM block rows (consecutive blocks walk down a group's rows, then one column right):
    //   per_group = kGroupM * blocks_n; first_m = (blockIdx.x / per_group) * kGroupM;
    //   rows = min(blocks_m - first_m, kGroupM); bm = first_m + (blockIdx.x % per_group) % rows;
    //   bn = (blockIdx.x % per_group) / rows.
    // TODO 1: extern __shared__ __align__(128) unsigned char smem[];
    //   stage s at byte s * 48 KiB: A ([128][64] bf16) then B ([64][256]).
    //   Work with 32-bit shared addresses (smem_addr) from here on.
    // TODO 2: swizzle helpers, element offset of (row, 16-byte chunk) inside one stage:
    //   A: row * BK + (chunk ^ (row & 7)) * 8;  B: row * BN + (chunk ^ (row & 7)) * 8.
    //   Check: the 8 rows one ldmatrix phase reads (same logical chunk) land in 8 different
    //   16-byte bank groups of a 128-byte line.
    // TODO 3: load_tile(kt, stage): chunk t + 256 i of each tile (A: 4 per thread, row t/8 + 32 i;
    //   B: 8 per thread, row t/32 + 8 i), cp_async_16 into the swizzled position, from
    //   A[block rows][kt * BK ..] and B[kt * BK ..][block columns]. Skip B chunks whose column
    //   is >= N (last block column when N % 256 == 128). Chunks whose k is >= K (the last tile
    //   when K % 64 == 32) are copied with src_bytes = 0: zeros, which add nothing to the dot
    //   products (what would a chunk left unwritten hold?). Point src at A or B itself there.
    // TODO 4: the pipeline, with ktiles = ceil(K / BK) and fragments double-buffered in registers:
    //   prologue: for s < kStages - 1: if (s < ktiles) load_tile(s, s); cp_async_commit() (always:
    //             one group per tile, even an empty one, keeps the wait counts right);
    //             cp_async_wait<kStages - 2>(); __syncthreads(); fragments of tile 0, k16 step 0.
    //   for kt, k16 step s = 0 .. 3:
    //           s == 3 first: cp_async_wait<kStages - 2>(); __syncthreads(); (tile kt+1 visible)
    //           fragments of step s + 1 (after s == 3: tile kt+1, step 0, next stage);
    //           s == 0: if (kt + kStages - 1 < ktiles) load_tile(kt + kStages - 1, its slot);
    //                   cp_async_commit();
    //           the 32 mma of step s.
    //   Why is the slot of tile kt-1 safe to overwrite at step 0 of tile kt?
//   Faster: the barrier lines all warps up, so they all reach load_tile at once, and while
//   both warps of a scheduler run its address code the tensor pipe idles. Keep that code
//   short (per tile: the two tile pointers and the zero-fill sizes; per chunk: one address
//   and the cp.async, no branch) and spread its copies over steps 0-2, between the mma.
    // TODO 5: cp_async_wait<0>(), then the epilogue of rung 8 (warps whose 64 columns lie past N
    //   store nothing). Faster: stage the C tile in the idle stages (swizzled by row, as B is),
    //   __syncthreads(), then 16-byte stores by consecutive threads along each row of C.
}

void launch_pipelined(const __nv_bfloat16* A, const __nv_bfloat16* B, __nv_bfloat16* C, int M, int N, int K,
                      cudaStream_t stream) {
    // More than 48 KiB of dynamic shared memory must be asked for; prefer the largest shared
    // carve-out (144 KiB per block, one block per SM).
    static const bool configured = [] {
        cudaFuncSetAttribute(gemm_pipelined, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmemBytes);
        cudaFuncSetAttribute(gemm_pipelined, cudaFuncAttributePreferredSharedMemoryCarveout,
                             cudaSharedmemCarveoutMaxShared);
        return true;
    }();
    (void)configured;
    const int blocks = (M / BM) * ((N + BN - 1) / BN);  // 1-D: the kernel rasterizes (TODO 0)
    gemm_pipelined<<<blocks, kThreads, kSmemBytes, stream>>>(A, B, C, M, N, K);
}

}  // namespace

ROOFLINE_GEMM_VARIANT(r9_pipelined, launch_pipelined);
