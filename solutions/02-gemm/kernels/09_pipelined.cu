// Rung 9: a multi-stage cp.async pipeline over swizzled shared memory. The
// same mma.sync.m16n8k16 / ldmatrix inner loop as rung 8 (bf16 in, fp32
// accumulate, bf16 out); what changes is how the operands reach it.
//
//   block tile 128 x 256, K step 32, 256 threads = 2 x 4 warps;
//   warp tile 64 x 64 = 4 x 8 mma tiles of 16 x 8, two k16 steps per K step;
//   per warp and k16 step: 4 ldmatrix.x4 for A, 4 ldmatrix.x4.trans for B,
//   32 mma (rung 8: 6 ldmatrix for 16 mma).
//
// 1. Software pipelining. Shared memory holds kStages = 4 tiles of A and B.
//    cp.async copies global -> shared directly (no register staging, no
//    thread waits for the data it asked for). While the block computes tile
//    kt, tiles kt+1 .. kt+3 are in flight: the ~1 us of global-memory
//    latency is covered by three tiles' worth of mma work. One __syncthreads
//    per K step instead of two.
//       prologue: issue tiles 0 .. S-2; wait for tile 0; barrier
//       for kt:   issue tile kt+S-1 into the slot tile kt-1 used;
//                 compute tile kt; at its last k16 step, wait for tile
//                 kt+1 (cp.async.wait_group S-2) and barrier.
//    Inside a K step the fragments are double-buffered in registers: the
//    ldmatrix of k16 step s+1 (or of the next tile's step 0) is issued
//    before the 32 mma of step s, so the warp never waits on shared memory.
//
// 2. An XOR swizzle on the 16-byte chunks of each shared tile, so that every
//    8-lane phase of ldmatrix touches 8 different 16-byte bank groups:
//      A tile [128][32] bf16 (rows of 64 B = 4 chunks):
//          physical chunk = chunk ^ ((row / 2) % 4)
//      B tile [32][256] bf16 (rows of 512 B = 32 chunks):
//          physical chunk = chunk ^ (row % 8)
//    Rung 8's 4-way (A) and 8-way (B) ldmatrix conflicts disappear; the
//    cp.async writes stay conflict-free too. Swizzling instead of padding
//    costs no extra shared memory.
//
// Why 128 x 256 and 64 x 64 per warp: a square warp tile needs the fewest
// ldmatrix per mma (one x4 per 4 mma; rung 8's 64 x 32 tile needs 1.5), and
// the larger block tile cuts the global/L2 bytes per FLOP by a third (24 KiB
// per 2.1 MFLOP instead of 16 KiB per 1.05 MFLOP), which matters at ~5 TB/s
// of L2 traffic. The price is registers: 128 fp32 accumulators + 64
// fragment registers per thread, so one block (8 warps) per SM; latency is
// hidden by the 32 independent mma per k16 step and the pipeline, not by
// occupancy. 4 stages x 24 KiB = 96 KiB of dynamic shared memory.
// Blocks are rasterized in groups of 16 block rows (2048 rows of C x ~8
// block columns per wave of 132 blocks), so a wave reuses its A and B panels
// from L2 instead of sweeping all of B.
//
// Measured before this version (128 x 128 tiles, 8 warps of 64 x 32, 2
// blocks/SM): 409.5 us = 335.6 TFLOP/s = 44% of cuBLAS; by the count above,
// held back by shared memory (6 wavefronts of ldmatrix per 4 mma, plus the
// cp.async writes) and by ~5 TB/s of L2 reads.
//
// Prediction, 4096^3 on the H200: ~0.29 ms (~475 TFLOP/s), 1.4x the previous
// version and ~60% of cuBLAS bf16 (~760 TFLOP/s). mma.sync on sm_90 tops out
// near 2/3 of the tensor cores' wgmma rate (~700 TFLOP/s at 1980 MHz); the
// barrier per K step, the 3.9-wave tail (512 blocks on 132 SMs) and the
// direct 32-bit epilogue stores take the rest. The remaining way needs
// Hopper's own instructions (TMA loads and warpgroup wgmma, lab 04).
//
// Shapes: M and N multiples of 128 and K of 32 (lab.yaml: divisible_by). N
// need not be a multiple of 256: in the last block column the upper 128
// columns are neither loaded nor stored.
#include "roofline/gemm.cuh"
#include "roofline/mma_sync.cuh"

#include <cstdint>

namespace {

using namespace roofline::gemm::mma;  // smem_addr, ldmatrix_x4(_trans), mma_bf16_16816

constexpr int BM = 128, BN = 256, BK = 32, kStages = 4;
constexpr int WM = 64, WN = 64;                                // warp tile
constexpr int kWarpsM = BM / WM, kWarpsN = BN / WN;            // 2 x 4 warps
constexpr int kThreads = 32 * kWarpsM * kWarpsN;               // 256
constexpr int MI = WM / 16, NI = WN / 8;                       // 4 x 8 mma tiles per warp
constexpr int kSteps = BK / 16;                                // k16 steps per K step
constexpr int kChunk = 8;                                      // bf16 per 16-byte chunk
constexpr int kRowChunksA = BK / kChunk, kRowChunksB = BN / kChunk;  // 4, 32
constexpr int kTileA = BM * BK, kTileB = BK * BN;              // elements per stage
constexpr int kChunksA = kTileA / kChunk / kThreads;           // 2 chunks of A per thread per tile
constexpr int kChunksB = kTileB / kChunk / kThreads;           // 4 chunks of B per thread per tile
constexpr int kRowStepA = kThreads / kRowChunksA;              // 64 rows between a thread's A chunks
constexpr int kRowStepB = kThreads / kRowChunksB;              // 8 rows between a thread's B chunks
constexpr int kStageBytes = (kTileA + kTileB) * int(sizeof(__nv_bfloat16));  // 24576: A then B
constexpr int kSmemBytes = kStages * kStageBytes;              // 98304
constexpr int kGroupM = 16;                                    // block rows per rasterization group
static_assert(kChunksA * kThreads * kChunk == kTileA && kChunksB * kThreads * kChunk == kTileB);
static_assert(BK == 32 && BN % 64 == 0, "the swizzles below assume 4-chunk A rows and B rows of 8k chunks");
static_assert(kSteps >= 2, "a tile's slot is refilled one k16 step after the barrier that frees it");
static_assert(kRowStepA % 8 == 0 && kRowStepB % 8 == 0, "a thread's chunks share one swizzle pattern");
static_assert(WM % 16 == 0 && WN % 64 == 0, "fragment swizzles depend on the lane only");

// Element offset of chunk `chunk` of row `row` inside one stage of a tile.
__host__ __device__ constexpr int swizzle_a(int row, int chunk) { return row * BK + (chunk ^ ((row >> 1) & 3)) * kChunk; }
__host__ __device__ constexpr int swizzle_b(int row, int chunk) { return row * BN + (chunk ^ (row & 7)) * kChunk; }

__device__ inline void cp_async_16(std::uint32_t dst, const void* src) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(src) : "memory");
}
__device__ inline void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
template <int kPending>
__device__ inline void cp_async_wait() {  // until at most kPending of this thread's groups are in flight
    asm volatile("cp.async.wait_group %0;\n" ::"n"(kPending) : "memory");
}

__global__ __launch_bounds__(kThreads, 1) void gemm_pipelined(const __nv_bfloat16* A, const __nv_bfloat16* B,
                                                              __nv_bfloat16* C, int M, int N, int K) {
    extern __shared__ __align__(128) unsigned char smem[];
    // Stage s at byte s * kStageBytes: A [128][32] swizzled, then B [32][256] swizzled.
    const std::uint32_t sbase = smem_addr(smem);
    constexpr std::uint32_t kOffB = kTileA * sizeof(__nv_bfloat16);
    const int t = threadIdx.x, lane = t % 32, warp = t / 32;
    const int w_m = (warp / kWarpsN) * WM, w_n = (warp % kWarpsN) * WN;

    // Grouped rasterization: consecutive blocks walk down kGroupM block rows, then move one block column right.
    const int blocks_m = M / BM, blocks_n = (N + BN - 1) / BN;
    const int per_group = kGroupM * blocks_n;
    const int first_m = (int(blockIdx.x) / per_group) * kGroupM;
    const int group_rows = min(blocks_m - first_m, kGroupM);
    const int in_group = int(blockIdx.x) % per_group;
    const int bm = first_m + in_group % group_rows, bn = in_group / group_rows;
    const int col0 = bn * BN;  // N % 128 == 0: columns col0 + 128 .. col0 + 255 may lie past N

    // Copy assignments: chunk t + i * 256 of each tile. A: row t/4 + 64 i, chunk t%4; B: row t/32 + 8 i, chunk t%32.
    const int a_row = t / kRowChunksA, a_chunk = t % kRowChunksA;
    const int b_row = t / kRowChunksB, b_chunk = t % kRowChunksB;
    const bool b_in = col0 + b_chunk * kChunk < N;  // this thread's B column exists
    const __nv_bfloat16* srcA = A + std::size_t(bm * BM + a_row) * K + a_chunk * kChunk;  // advances by BK per tile
    const __nv_bfloat16* srcB = B + std::size_t(b_row) * N + col0 + b_chunk * kChunk;    // advances by BK rows
    const std::size_t strideA = std::size_t(kRowStepA) * K, strideB = std::size_t(kRowStepB) * N;
    const std::size_t tileStepB = std::size_t(BK) * N;
    // Byte offsets inside a stage; rows 64 i (A) and 8 i (B) further down keep the same swizzle.
    const std::uint32_t dstA = swizzle_a(a_row, a_chunk) * sizeof(__nv_bfloat16);
    const std::uint32_t dstB = kOffB + swizzle_b(b_row, b_chunk) * sizeof(__nv_bfloat16);

    auto load_tile = [&](std::uint32_t stage) {  // the next K tile into stage `stage`, then advance
        const std::uint32_t base = sbase + stage * kStageBytes;
#pragma unroll
        for (int i = 0; i < kChunksA; ++i)
            cp_async_16(base + dstA + i * kRowStepA * BK * sizeof(__nv_bfloat16), srcA + i * strideA);
        if (b_in) {
#pragma unroll
            for (int i = 0; i < kChunksB; ++i)
                cp_async_16(base + dstB + i * kRowStepB * BN * sizeof(__nv_bfloat16), srcB + i * strideB);
        }
        srcA += BK;
        srcB += tileStepB;
    };

    // ldmatrix addresses of this lane (see rung 8 for which lane points where), swizzled. w_m, mi * 16
    // are multiples of 16 and w_n a multiple of 64 (8 chunks), so the swizzle depends on the lane only:
    // per-lane offsets for the k16 steps of A and the n16 pairs of B, compile-time offsets for the rest.
    std::uint32_t fragA[kSteps], fragB[NI / 2];  // byte offsets inside a stage
#pragma unroll
    for (int s = 0; s < kSteps; ++s)
        fragA[s] = swizzle_a(w_m + lane % 16, 2 * s + lane / 16) * sizeof(__nv_bfloat16);
#pragma unroll
    for (int nj = 0; nj < NI / 2; ++nj)
        fragB[nj] = kOffB + swizzle_b(lane % 8 + ((lane / 8) % 2) * 8, w_n / kChunk + 2 * nj + lane / 16) *
                                sizeof(__nv_bfloat16);

    std::uint32_t fA[2][MI][4], fB[2][NI / 2][4];  // double-buffered fragments
    auto load_frags = [&](int buf, std::uint32_t stage_base, int s) {
#pragma unroll
        for (int mi = 0; mi < MI; ++mi)
            ldmatrix_x4(fA[buf][mi], stage_base + fragA[s] + mi * 16 * BK * sizeof(__nv_bfloat16));
#pragma unroll
        for (int nj = 0; nj < NI / 2; ++nj)  // one x4.trans = two n8 tiles x two k8 halves
            ldmatrix_x4_trans(fB[buf][nj], stage_base + fragB[nj] + s * 16 * BN * sizeof(__nv_bfloat16));
    };

    const int ktiles = K / BK;
#pragma unroll
    for (int s = 0; s < kStages - 1; ++s) {  // prologue: tiles 0 .. S-2 in flight
        if (s < ktiles) load_tile(s);
        cp_async_commit();  // commit even when empty: the group count stays one per tile
    }
    cp_async_wait<kStages - 2>();  // tile 0 has landed ...
    __syncthreads();               // ... for everyone

    std::uint32_t read_stage = 0, write_stage = kStages - 1;
    load_frags(0, sbase, 0);

    float acc[MI][NI][4] = {};
    for (int kt = 0; kt < ktiles; ++kt) {
#pragma unroll
        for (int s = 0; s < kSteps; ++s) {
            if (s == kSteps - 1) {
                // The last k16 step of tile kt: its fragments are already in registers. Wait for
                // tile kt+1 (groups committed: S-1 + kt+1; tiles 0 .. kt+1 done leaves S-2 pending)
                // and make it visible; after this barrier nobody reads tile kt's slot again.
                cp_async_wait<kStages - 2>();
                __syncthreads();
                read_stage = read_stage + 1 == kStages ? 0 : read_stage + 1;
            }
            // Fragments of the next k16 step (past the last tile: harmless reads of a stale slot).
            load_frags((s + 1) % 2, sbase + read_stage * kStageBytes, (s + 1) % kSteps);
            if (s == 0) {
                // Refill the slot of tile kt-1: every warp passed the barrier at the end of tile
                // kt-1, after its last ldmatrix of that tile.
                if (kt + kStages - 1 < ktiles) load_tile(write_stage);
                cp_async_commit();
                write_stage = write_stage + 1 == kStages ? 0 : write_stage + 1;
            }
#pragma unroll
            for (int mi = 0; mi < MI; ++mi)
#pragma unroll
                for (int ni = 0; ni < NI; ++ni)
                    mma_bf16_16816(acc[mi][ni], fA[s % 2][mi], fB[s % 2][ni / 2][2 * (ni % 2)],
                                   fB[s % 2][ni / 2][2 * (ni % 2) + 1]);
        }
    }
    cp_async_wait<0>();  // only empty groups remain; leave nothing in flight

    // Accumulator layout of m16n8: lane holds rows lane/4 and lane/4 + 8, columns 2*(lane%4) and +1.
    if (col0 + w_n >= N) return;  // this warp's 64 columns lie past N (last block column, N % 256 == 128)
    const int g = lane / 4, q = lane % 4;
    __nv_bfloat16* out = C + std::size_t(bm * BM + w_m + g) * N + col0 + w_n + 2 * q;
#pragma unroll
    for (int mi = 0; mi < MI; ++mi)
#pragma unroll
        for (int ni = 0; ni < NI; ++ni) {
            __nv_bfloat16* p = out + std::size_t(mi * 16) * N + ni * 8;
            *reinterpret_cast<__nv_bfloat162*>(p) = __floats2bfloat162_rn(acc[mi][ni][0], acc[mi][ni][1]);
            *reinterpret_cast<__nv_bfloat162*>(p + std::size_t(8) * N) =
                __floats2bfloat162_rn(acc[mi][ni][2], acc[mi][ni][3]);
        }
}

void launch_pipelined(const __nv_bfloat16* A, const __nv_bfloat16* B, __nv_bfloat16* C, int M, int N, int K,
                      cudaStream_t stream) {
    // More than 48 KiB of dynamic shared memory must be asked for once; prefer the largest shared
    // carve-out (96 KiB of it per block).
    static const bool configured = [] {
        cudaFuncSetAttribute(gemm_pipelined, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmemBytes);
        cudaFuncSetAttribute(gemm_pipelined, cudaFuncAttributePreferredSharedMemoryCarveout,
                             cudaSharedmemCarveoutMaxShared);
        return true;
    }();
    (void)configured;
    const int blocks = (M / BM) * ((N + BN - 1) / BN);
    gemm_pipelined<<<blocks, kThreads, kSmemBytes, stream>>>(A, B, C, M, N, K);
}

}  // namespace

ROOFLINE_GEMM_VARIANT(r9_pipelined, launch_pipelined);
