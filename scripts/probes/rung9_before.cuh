// Lab 02 rung 9's reference kernel as it was measured on 2026-12-01 (470.3 TFLOP/s, 72.3% of the
// mma.sync roof; results/2026-12-01-h200-runs57-60.md), kept frozen so that
// scripts/probes/rung9_variants.cu times the current solution against it in the same run. Not
// built anywhere else. What changed since is in the solution's header: the copies of the next K
// tile were one branchy block of ~110 instructions (bound checks per chunk, the source pointer
// reloaded from the constant bank) that every warp ran between two bursts of mma.
#pragma once
#include "roofline/gemm.cuh"
#include "roofline/mma_sync.cuh"

#include <cstdint>

namespace rung9_before {

using namespace roofline::gemm::mma;  // smem_addr, ldmatrix_x4(_trans), mma_bf16_16816

// One shape of the kernel: block tile BM x BN, K step BK, kStages shared tiles, warp tile WM x WN,
// kMinBlocks blocks per SM asked of the compiler (launch bounds), kSmemEpilogue: C leaves through
// shared memory in 16-byte stores instead of 4-byte stores from the accumulators.
template <int BM_, int BN_, int BK_, int kStages_, int WM_, int WN_, int kMinBlocks_, bool kSmemEpilogue_,
          int kGroupM_ = 16>
struct Tiles {
    static constexpr int BM = BM_, BN = BN_, BK = BK_, kStages = kStages_, WM = WM_, WN = WN_;
    static constexpr int kMinBlocks = kMinBlocks_, kGroupM = kGroupM_;  // kGroupM: block rows per raster group
    static constexpr bool kSmemEpilogue = kSmemEpilogue_;
    static constexpr int kWarpsM = BM / WM, kWarpsN = BN / WN;
    static constexpr int kThreads = 32 * kWarpsM * kWarpsN;
    static constexpr int MI = WM / 16, NI = WN / 8;            // mma tiles per warp
    static constexpr int kSteps = BK / 16;                     // k16 steps per K step
    static constexpr int kChunk = 8;                           // bf16 per 16-byte chunk
    static constexpr int kRowChunksA = BK / kChunk, kRowChunksB = BN / kChunk;
    static constexpr int kTileA = BM * BK, kTileB = BK * BN;   // elements per stage
    static constexpr int kChunksA = kTileA / kChunk / kThreads, kChunksB = kTileB / kChunk / kThreads;
    static constexpr int kRowStepA = kThreads / kRowChunksA, kRowStepB = kThreads / kRowChunksB;
    static constexpr int kStageBytes = (kTileA + kTileB) * int(sizeof(__nv_bfloat16));  // A then B
    static constexpr int kSmemBytes = kStages * kStageBytes;
    static_assert(kChunksA * kThreads * kChunk == kTileA && kChunksB * kThreads * kChunk == kTileB);
    static_assert(kRowStepA % 8 == 0 && kRowStepB % 8 == 0, "a thread's chunks share one swizzle pattern");
    static_assert(BK == 32 || BK % 64 == 0, "A rows of 4 chunks, or of a multiple of 8");
    static_assert(BN % 64 == 0 && WN % 64 == 0 && WM % 16 == 0, "fragment swizzles depend on the lane only");
    static_assert(kSteps >= 2, "a tile's slot is refilled one k16 step after the barrier that frees it");
    static_assert(kSteps % 2 == 0, "fragment buffer (s + 1) % 2 of the last step is the next tile's step 0");
    static_assert(BM % 128 == 0 || BM == 64, "M is a multiple of 128: a block's rows lie in or out in warps");
    static_assert(!kSmemEpilogue || BM * BN * int(sizeof(__nv_bfloat16)) <= kSmemBytes, "C tile fits the stages");

    // Element offset of chunk `chunk` of row `row` inside one stage of a tile.
    __host__ __device__ static constexpr int swizzle_a(int row, int chunk) {
        return row * BK + (BK == 32 ? chunk ^ ((row >> 1) & 3) : chunk ^ (row & 7)) * kChunk;
    }
    __host__ __device__ static constexpr int swizzle_b(int row, int chunk) {
        return row * BN + (chunk ^ (row & 7)) * kChunk;
    }
};

// The shape this rung ships. The probe's table names the alternatives; switching is this line.
// C leaves through shared memory in 16-byte stores: on an H200 (2026-12-01) that row was the
// fastest, 73.9% of the mma.sync roof against 69.4% for the direct 4-byte stores.
using Shipped = Tiles<128, 256, 64, 3, 64, 64, 1, true>;

// 16 bytes global -> shared, asynchronously (.cg: cached in L2 only); src_bytes = 0 writes 16 zeros.
__device__ inline void cp_async_16(std::uint32_t dst, const void* src, std::uint32_t src_bytes) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(src_bytes)
                 : "memory");
}
__device__ inline void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
template <int kPending>
__device__ inline void cp_async_wait() {  // until at most kPending of this thread's groups are in flight
    asm volatile("cp.async.wait_group %0;\n" ::"n"(kPending) : "memory");
}

template <class T>
__global__ __launch_bounds__(T::kThreads, T::kMinBlocks) void gemm_pipelined(const __nv_bfloat16* A,
                                                                             const __nv_bfloat16* B,
                                                                             __nv_bfloat16* C, int M, int N, int K) {
    constexpr int BM = T::BM, BN = T::BN, BK = T::BK, kStages = T::kStages, kSteps = T::kSteps;
    constexpr int MI = T::MI, NI = T::NI, kChunk = T::kChunk;
    constexpr int kBf16 = int(sizeof(__nv_bfloat16));
    extern __shared__ __align__(128) unsigned char smem[];
    // Stage s at byte s * kStageBytes: A [BM][BK] swizzled, then B [BK][BN] swizzled.
    const std::uint32_t sbase = smem_addr(smem);
    constexpr std::uint32_t kOffB = T::kTileA * kBf16;
    const int t = threadIdx.x, lane = t % 32, warp = t / 32;
    const int w_m = (warp / T::kWarpsN) * T::WM, w_n = (warp % T::kWarpsN) * T::WN;

    // Grouped rasterization: consecutive blocks walk down kGroupM block rows, then move one block column right.
    const int blocks_m = (M + BM - 1) / BM, blocks_n = (N + BN - 1) / BN;
    const int per_group = T::kGroupM * blocks_n;
    const int first_m = (int(blockIdx.x) / per_group) * T::kGroupM;
    const int group_rows = min(blocks_m - first_m, T::kGroupM);
    const int in_group = int(blockIdx.x) % per_group;
    const int bm = first_m + in_group % group_rows, bn = in_group / group_rows;
    const int row0 = bm * BM, col0 = bn * BN;  // M, N % 128 == 0: a 256 tile may hang 128 past the edge

    // Copy assignments: chunk t + i * kThreads of each tile. A: row a_row + i * kRowStepA, chunk a_chunk;
    // B: row b_row + i * kRowStepB, chunk b_chunk. Chunks past M or N are skipped (nobody stores what they
    // feed); chunks past K are zero-filled (they feed valid outputs).
    const int a_row = t / T::kRowChunksA, a_chunk = t % T::kRowChunksA;
    const int b_row = t / T::kRowChunksB, b_chunk = t % T::kRowChunksB;
    const bool b_in = col0 + b_chunk * kChunk < N;  // this thread's B column exists
    const __nv_bfloat16* srcA = A + std::size_t(row0 + a_row) * K + a_chunk * kChunk;  // advances by BK per tile
    const __nv_bfloat16* srcB = B + std::size_t(b_row) * N + col0 + b_chunk * kChunk;    // advances by BK rows
    const std::size_t strideA = std::size_t(T::kRowStepA) * K, strideB = std::size_t(T::kRowStepB) * N;
    const std::size_t tileStepB = std::size_t(BK) * N;
    // Byte offsets inside a stage; rows kRowStep further down keep the same swizzle.
    const std::uint32_t dstA = T::swizzle_a(a_row, a_chunk) * kBf16;
    const std::uint32_t dstB = kOffB + T::swizzle_b(b_row, b_chunk) * kBf16;

    auto load_tile = [&](std::uint32_t stage, int k_left) {  // the next K tile into `stage`, then advance
        const std::uint32_t base = sbase + stage * T::kStageBytes;
        const std::uint32_t a_bytes = a_chunk * kChunk < k_left ? 16 : 0;
#pragma unroll
        for (int i = 0; i < T::kChunksA; ++i)
            if (row0 + a_row + i * T::kRowStepA < M)
                cp_async_16(base + dstA + i * T::kRowStepA * BK * kBf16, a_bytes ? srcA + i * strideA : A, a_bytes);
        if (b_in) {
#pragma unroll
            for (int i = 0; i < T::kChunksB; ++i) {
                const bool k_in = b_row + i * T::kRowStepB < k_left;
                cp_async_16(base + dstB + i * T::kRowStepB * BN * kBf16, k_in ? srcB + i * strideB : B,
                            k_in ? 16 : 0);
            }
        }
        srcA += BK;
        srcB += tileStepB;
    };

    // ldmatrix addresses of this lane (see rung 8 for which lane points where), swizzled. w_m, mi * 16
    // are multiples of 16 and w_n a multiple of 64 (8 chunks), so the swizzle depends on the lane only:
    // per-lane offsets for the k16 steps of A and the n16 pairs of B, compile-time offsets for the rest.
    std::uint32_t fragA[kSteps], fragB[NI / 2];  // byte offsets inside a stage
#pragma unroll
    for (int s = 0; s < kSteps; ++s) fragA[s] = T::swizzle_a(w_m + lane % 16, 2 * s + lane / 16) * kBf16;
#pragma unroll
    for (int nj = 0; nj < NI / 2; ++nj)
        fragB[nj] = kOffB + T::swizzle_b(lane % 8 + ((lane / 8) % 2) * 8, w_n / kChunk + 2 * nj + lane / 16) * kBf16;

    std::uint32_t fA[2][MI][4], fB[2][NI / 2][4];  // double-buffered fragments
    auto load_frags = [&](int buf, std::uint32_t stage_base, int s) {
#pragma unroll
        for (int mi = 0; mi < MI; ++mi) ldmatrix_x4(fA[buf][mi], stage_base + fragA[s] + mi * 16 * BK * kBf16);
#pragma unroll
        for (int nj = 0; nj < NI / 2; ++nj)  // one x4.trans = two n8 tiles x two k8 halves
            ldmatrix_x4_trans(fB[buf][nj], stage_base + fragB[nj] + s * 16 * BN * kBf16);
    };

    const int ktiles = (K + BK - 1) / BK;
#pragma unroll
    for (int s = 0; s < kStages - 1; ++s) {  // prologue: tiles 0 .. S-2 in flight
        if (s < ktiles) load_tile(s, K - s * BK);
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
            load_frags((s + 1) % 2, sbase + read_stage * T::kStageBytes, (s + 1) % kSteps);
            if (s == 0) {
                // Refill the slot of tile kt-1: every warp passed the barrier at the end of tile
                // kt-1, after its last ldmatrix of that tile.
                const int next = kt + kStages - 1;
                if (next < ktiles) load_tile(write_stage, K - next * BK);
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
    const int g = lane / 4, q = lane % 4;
    if constexpr (!T::kSmemEpilogue) {
        // This warp's columns or rows may lie past N or M (a 256-wide tile at the last block column or row).
        if (col0 + w_n >= N || row0 + w_m >= M) return;
        __nv_bfloat16* out = C + std::size_t(row0 + w_m + g) * N + col0 + w_n + 2 * q;
#pragma unroll
        for (int mi = 0; mi < MI; ++mi)
#pragma unroll
            for (int ni = 0; ni < NI; ++ni) {
                __nv_bfloat16* p = out + std::size_t(mi * 16) * N + ni * 8;
                *reinterpret_cast<__nv_bfloat162*>(p) = __floats2bfloat162_rn(acc[mi][ni][0], acc[mi][ni][1]);
                *reinterpret_cast<__nv_bfloat162*>(p + std::size_t(8) * N) =
                    __floats2bfloat162_rn(acc[mi][ni][2], acc[mi][ni][3]);
            }
    } else {
        // C tile [BM][BN] bf16 in the (now idle) stages, chunks swizzled by row % 8 so that the 8 rows
        // one 4-byte store instruction touches fall in 8 different bank groups; then 16-byte stores
        // by consecutive threads along each row of C.
        __syncthreads();  // every warp is done with its (stale) ldmatrix reads
        auto* tile = reinterpret_cast<__nv_bfloat16*>(smem);
        auto at = [&](int row, int col) { return row * BN + (((col / kChunk) ^ (row & 7)) * kChunk) + col % kChunk; };
#pragma unroll
        for (int mi = 0; mi < MI; ++mi)
#pragma unroll
            for (int ni = 0; ni < NI; ++ni) {
                const int r = w_m + mi * 16 + g, c = w_n + ni * 8 + 2 * q;
                *reinterpret_cast<__nv_bfloat162*>(tile + at(r, c)) =
                    __floats2bfloat162_rn(acc[mi][ni][0], acc[mi][ni][1]);
                *reinterpret_cast<__nv_bfloat162*>(tile + at(r + 8, c)) =
                    __floats2bfloat162_rn(acc[mi][ni][2], acc[mi][ni][3]);
            }
        __syncthreads();
        constexpr int kRowChunksC = BN / kChunk;
#pragma unroll 4
        for (int i = t; i < BM * kRowChunksC; i += T::kThreads) {
            const int r = i / kRowChunksC, c = (i % kRowChunksC) * kChunk;
            if (row0 + r < M && col0 + c < N)
                *reinterpret_cast<uint4*>(C + std::size_t(row0 + r) * N + col0 + c) =
                    *reinterpret_cast<const uint4*>(tile + at(r, c));
        }
    }
}

template <class T>
void launch_tiles(const __nv_bfloat16* A, const __nv_bfloat16* B, __nv_bfloat16* C, int M, int N, int K,
                  cudaStream_t stream) {
    // More than 48 KiB of dynamic shared memory must be asked for once; prefer the largest shared
    // carve-out.
    static const bool configured = [] {
        cudaFuncSetAttribute(gemm_pipelined<T>, cudaFuncAttributeMaxDynamicSharedMemorySize, T::kSmemBytes);
        cudaFuncSetAttribute(gemm_pipelined<T>, cudaFuncAttributePreferredSharedMemoryCarveout,
                             cudaSharedmemCarveoutMaxShared);
        return true;
    }();
    (void)configured;
    const int blocks = ((M + T::BM - 1) / T::BM) * ((N + T::BN - 1) / T::BN);
    gemm_pipelined<T><<<blocks, T::kThreads, T::kSmemBytes, stream>>>(A, B, C, M, N, K);
}

void launch_pipelined(const __nv_bfloat16* A, const __nv_bfloat16* B, __nv_bfloat16* C, int M, int N, int K,
                      cudaStream_t stream) {
    launch_tiles<Shipped>(A, B, C, M, N, K, stream);
}

}  // namespace rung9_before
