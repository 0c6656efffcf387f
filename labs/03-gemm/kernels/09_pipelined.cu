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
    // TODO 0: which tile? The grid is 1-D, one block per tile of C. Map blockIdx.x to a block
    //   row and column so that the blocks running at the same time cover a compact patch of C
    //   (groups of kGroupM block rows, walked down a group's rows before moving a column right:
    //   lesson 03, rung 9, the order of the blocks), so their strips of A and B are shared
    //   through the L2. Every tile exactly once, the last group possibly shorter than kGroupM.
    // TODO 1: the dynamic shared memory, kStages stages of one A tile (128 x 64 bf16) and one
    //   B tile (64 x 256), 48 KiB a stage, 128-byte aligned; address it as 32-bit shared
    //   addresses (smem_addr), which ldmatrix and cp.async take.
    // TODO 2: swizzle helpers, the element offset of (row, 16-byte chunk) inside a stage's A or
    //   B tile, as the header maps them. What they must guarantee: the 8 rows one ldmatrix
    //   phase reads (the same logical chunk) land in 8 different 16-byte bank groups, and each
    //   row's chunks stay a permutation of that row (cp.async and ldmatrix use the same map).
    // TODO 3: load_tile(kt, stage): every 16-byte chunk of A's and B's tile kt, each thread
    //   the same number, into its swizzled place by cp_async_16; neighbouring threads on
    //   neighbouring chunks of a row (coalesced). The edges: a chunk of B whose columns lie
    //   past N (the last block column when N % 256 == 128) is neither read nor needed; a chunk
    //   whose k lies past K (the last tile when K % 64 == 32) must be zeros, which add nothing
    //   to the dot products (what would a chunk left unwritten hold?): cp.async with 0 source
    //   bytes writes zeros and reads nothing, but still wants a valid address.
    // TODO 4: the pipeline (lesson 03, section 4), kStages - 1 tiles in flight while one is
    //   computed, one barrier per K step, and the fragments double-buffered in registers (the
    //   ldmatrix of the next k16 step issued before the mma of this one). The invariants:
    //   - cp_async_wait<N> counts committed groups, so commit exactly one group per tile
    //     slot, even an empty one past the last tile (K may be a single tile, fewer than the
    //     stages), or the counts stop meaning "tile kt has landed";
    //   - a tile is read by ldmatrix only after this thread's wait for its group and a barrier
    //     (the other threads' copies of it);
    //   - a stage is overwritten only after every warp has done its last ldmatrix from it.
    //   Why is the slot of tile kt-1 safe to refill early in tile kt? (Which barrier proves
    //   that every warp has left it?)
//   Faster: the barrier lines all warps up, so they all reach load_tile at once, and while
//   both warps of a scheduler run its address code the tensor pipe idles. Keep that code
//   short (per tile: the two tile pointers and the zero-fill sizes; per chunk: one address
//   and the cp.async, no branch) and spread its copies over steps 0-2, between the mma.
    // TODO 5: the epilogue, once no copy is in flight: rung 8's store (warps whose 64 columns
    //   lie past N store nothing). Faster (lesson 03, rung 9's epilogue through shared
    //   memory): stage the C tile in the idle stages, conflict-free, then wide stores by
    //   consecutive threads along each row of C.
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
