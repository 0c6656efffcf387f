// Given code for lab 03's GEMM + bias + GELU: lab 02's rung 9 (bf16 mma.sync,
// 128 x 256 block tile, 4-stage cp.async pipeline over swizzled shared memory;
// solutions/02-gemm/kernels/09_pipelined.cu explains every choice) with its
// final store taken out and replaced by an epilogue functor. The main loop is
// the same instruction for instruction; what a lab file chooses is what happens
// to the fp32 accumulators on their way out:
//
//     struct MyEpilogue {
//         __nv_bfloat16* Y;
//         int N;
//         // v0 = (A B)[row][col], v1 = (A B)[row][col + 1], fp32; col is even.
//         __device__ void operator()(int row, int col, float v0, float v1) const { ... store ... }
//     };
//     launch_gemm_with_epilogue(A, B, M, N, K, MyEpilogue{Y, N}, stream);
//
// Every even (row, col) of the M x N output is handed to the epilogue exactly
// once, by one thread, right after the main loop. StoreBf16 below is the plain
// epilogue (round, store): with it this is rung 9.
//
// Shapes: M and N multiples of 128, K of 32 (lab.yaml: divisible_by).
//
// The kernel and its launcher have internal linkage (an unnamed namespace):
// each lab file that includes this header gets its own copy, instantiated for
// its own epilogue, and no two files share a kernel symbol.
#pragma once
#include "gemm/mma_sync.cuh"

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace roofline::fusion {

// The plain epilogue: round the pair to bf16 and store it with one 32-bit store.
struct StoreBf16 {
    __nv_bfloat16* Y;
    int N;  // row length of Y
    __device__ void operator()(int row, int col, float v0, float v1) const {
        *reinterpret_cast<__nv_bfloat162*>(Y + std::size_t(row) * N + col) = __floats2bfloat162_rn(v0, v1);
    }
};

namespace tiled_gemm {

inline constexpr int BM = 128, BN = 256, BK = 32, kStages = 4;
inline constexpr int WM = 64, WN = 64;                                // warp tile
inline constexpr int kWarpsM = BM / WM, kWarpsN = BN / WN;            // 2 x 4 warps
inline constexpr int kThreads = 32 * kWarpsM * kWarpsN;               // 256
inline constexpr int MI = WM / 16, NI = WN / 8;                       // 4 x 8 mma tiles per warp
inline constexpr int kSteps = BK / 16;                                // k16 steps per K step
inline constexpr int kChunk = 8;                                      // bf16 per 16-byte chunk
inline constexpr int kRowChunksA = BK / kChunk, kRowChunksB = BN / kChunk;  // 4, 32
inline constexpr int kTileA = BM * BK, kTileB = BK * BN;              // elements per stage
inline constexpr int kChunksA = kTileA / kChunk / kThreads;           // 2 chunks of A per thread per tile
inline constexpr int kChunksB = kTileB / kChunk / kThreads;           // 4 chunks of B per thread per tile
inline constexpr int kRowStepA = kThreads / kRowChunksA;              // 64 rows between a thread's A chunks
inline constexpr int kRowStepB = kThreads / kRowChunksB;              // 8 rows between a thread's B chunks
inline constexpr int kStageBytes = (kTileA + kTileB) * int(sizeof(__nv_bfloat16));  // 24576: A then B
inline constexpr int kSmemBytes = kStages * kStageBytes;              // 98304
inline constexpr int kGroupM = 16;                                    // block rows per rasterization group
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

namespace {

template <class Epilogue>
__global__ __launch_bounds__(kThreads, 1) void gemm_with_epilogue(const __nv_bfloat16* A, const __nv_bfloat16* B,
                                                                  int M, int N, int K, Epilogue epilogue) {
    using namespace roofline::gemm::mma;  // smem_addr, ldmatrix_x4(_trans), mma_bf16_16816
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

    // ldmatrix byte offsets of this lane inside a stage (see rung 8 for which lane points where).
    std::uint32_t fragA[kSteps], fragB[NI / 2];
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
                // Last k16 step of tile kt (its fragments are in registers): wait for tile kt+1, barrier.
                cp_async_wait<kStages - 2>();
                __syncthreads();
                read_stage = read_stage + 1 == kStages ? 0 : read_stage + 1;
            }
            load_frags((s + 1) % 2, sbase + read_stage * kStageBytes, (s + 1) % kSteps);
            if (s == 0) {
                // Refill the slot of tile kt-1: every warp passed the barrier after its last read of it.
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

    // The epilogue. Accumulator layout of m16n8: lane holds rows lane/4 and lane/4 + 8, columns
    // 2*(lane%4) and +1, of each 16 x 8 tile.
    if (col0 + w_n >= N) return;  // this warp's 64 columns lie past N (last block column, N % 256 == 128)
    const int row = bm * BM + w_m + lane / 4, col = col0 + w_n + 2 * (lane % 4);
#pragma unroll
    for (int mi = 0; mi < MI; ++mi)
#pragma unroll
        for (int ni = 0; ni < NI; ++ni) {
            epilogue(row + mi * 16, col + ni * 8, acc[mi][ni][0], acc[mi][ni][1]);
            epilogue(row + mi * 16 + 8, col + ni * 8, acc[mi][ni][2], acc[mi][ni][3]);
        }
}

// The M x N product of A [M][K] and B [K][N] (row-major bf16), handed to `epilogue` pair by pair.
template <class Epilogue>
void launch_gemm_with_epilogue(const __nv_bfloat16* A, const __nv_bfloat16* B, int M, int N, int K,
                               Epilogue epilogue, cudaStream_t stream) {
    // More than 48 KiB of dynamic shared memory must be asked for, once per instantiation.
    static const bool configured = [] {
        cudaFuncSetAttribute(gemm_with_epilogue<Epilogue>, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmemBytes);
        cudaFuncSetAttribute(gemm_with_epilogue<Epilogue>, cudaFuncAttributePreferredSharedMemoryCarveout,
                             cudaSharedmemCarveoutMaxShared);
        return true;
    }();
    (void)configured;
    const int blocks = (M / BM) * ((N + BN - 1) / BN);
    gemm_with_epilogue<Epilogue><<<blocks, kThreads, kSmemBytes, stream>>>(A, B, M, N, K, epilogue);
}

}  // namespace

}  // namespace tiled_gemm

using tiled_gemm::launch_gemm_with_epilogue;

}  // namespace roofline::fusion
