// Lab 02 rung 9's reference kernel as graded on 2026-12-01 (487.9 TFLOP/s, 75.6% of the mma.sync
// roof, 63.7% of cuBLAS; results/2026-12-01-h200-runs66-69.md), kept frozen so that
// scripts/probes/rung9_variants.cu times the current solution against it in the same run. Not
// built anywhere else. It ships `Tiles<128, 256, 64, 3, 64, 64, 1, true, 16, 3, false, 0>`; its
// other options (the second warp row's lead, mbarriers instead of block barriers, a persistent
// grid) were measured in runs 64-67 and lost. What changed since is in the solution's header.
#pragma once
#include "roofline/gemm.cuh"
#include "roofline/mma_sync.cuh"

#include <cstdint>
#include <type_traits>

namespace rung9_before {

using namespace roofline::gemm::mma;  // smem_addr, ldmatrix_x4(_trans), mma_bf16_16816

// One shape of the kernel: block tile BM x BN, K step BK, kStages shared tiles, warp tile WM x WN,
// kMinBlocks blocks per SM asked of the compiler (launch bounds), kSmemEpilogue: C leaves through
// shared memory in 16-byte stores instead of 4-byte stores from the accumulators.
// kCopySteps: the copies of the next K tile are spread over the first kCopySteps k16 steps (1: all
// before the first step's mma), so that they issue between mma rather than as one block.
// kPersistent: one block per SM walks its C tiles one after another, the pipeline running on
// across them: the next C tile's first K tiles are in flight during this one's epilogue, which
// stages C in its own shared buffer (64 KiB more), not in the stages.
template <int BM_, int BN_, int BK_, int kStages_, int WM_, int WN_, int kMinBlocks_, bool kSmemEpilogue_,
          int kGroupM_ = 16, int kCopySteps_ = BK_ / 16 - 1, bool kPersistent_ = false, int kLead_ = 0,
          bool kMbar_ = false>
struct Tiles {
    static constexpr int BM = BM_, BN = BN_, BK = BK_, kStages = kStages_, WM = WM_, WN = WN_;
    static constexpr int kMinBlocks = kMinBlocks_, kGroupM = kGroupM_;  // kGroupM: block rows per raster group
    static constexpr int kCopySteps = kCopySteps_;
    static constexpr int kLead = kLead_;  // see 5: mi rows of a k16 step the second warp row runs ahead
    // kMbar (see 6): no block barrier in the K loop; per stage an mbarrier "landed" (all threads'
    // copies) and one "read" (all threads past their ldmatrix), and two tiles in flight, not S-1.
    static constexpr bool kMbar = kMbar_;
    static constexpr int kAhead = kMbar ? kStages_ - 2 : kStages_ - 1;  // tiles in flight past the one computed
    static constexpr bool kSmemEpilogue = kSmemEpilogue_, kPersistent = kPersistent_;
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
    static constexpr int kTileCBytes = BM * BN * int(sizeof(__nv_bfloat16));
    static constexpr int kOffC = kPersistent ? kStages * kStageBytes : 0;  // C's staging buffer
    static constexpr int kOffBars = kStages * kStageBytes;  // kMbar: the 2 x kStages mbarriers, after the stages
    static constexpr int kSmemBytes =
        kStages * kStageBytes + (kPersistent && kSmemEpilogue ? kTileCBytes : 0) + (kMbar ? 16 * kStages : 0);
    static_assert(kChunksA * kThreads * kChunk == kTileA && kChunksB * kThreads * kChunk == kTileB);
    static_assert(kRowStepA % 8 == 0 && kRowStepB % 8 == 0, "a thread's chunks share one swizzle pattern");
    static_assert(BK == 32 || BK % 64 == 0, "A rows of 4 chunks, or of a multiple of 8");
    static_assert(BN % 64 == 0 && WN % 64 == 0 && WM % 16 == 0, "fragment swizzles depend on the lane only");
    static_assert(kSteps >= 2, "a tile's slot is refilled one k16 step after the barrier that frees it");
    static_assert(kSteps % 2 == 0, "fragment buffer (s + 1) % 2 of the last step is the next tile's step 0");
    static_assert(kCopySteps >= 1 && kCopySteps <= kSteps - 1, "a tile's copies are committed before the wait");
    static_assert(BM % 128 == 0 || BM == 64, "M is a multiple of 128: a block's rows lie in or out in warps");
    static_assert(!kSmemEpilogue || kTileCBytes <= kSmemBytes, "C tile fits the stages");
    static_assert(!kMbar || (!kPersistent && kStages >= 4), "kMbar: one stage of slack, one C tile a block");
    static_assert(kLead >= 0 && kLead < MI && (kLead == 0 || kWarpsM == 2), "a lead of 0 .. MI-1 rows, two warp rows");

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
// fastest, 73.9% of the mma.sync roof against 69.4% for the direct 4-byte stores. The copies of
// the next tile are spread over 3 of the 4 k16 steps (1: all at the first); not persistent; the
// last argument is the second warp row's lead in mi rows of a k16 step (0: none, 2: half a step).
// No lead: on an H200 (2026-12-01, results/2026-12-01-h200-runs66-69.md) every lead cost 12-14%.
using Shipped = Tiles<128, 256, 64, 3, 64, 64, 1, true, 16, 3, false, 0>;

// 16 bytes global -> shared, asynchronously (.cg: cached in L2 only); src_bytes = 0 writes 16 zeros.
__device__ inline void cp_async_16(std::uint32_t dst, const void* src, std::uint32_t src_bytes) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(src_bytes)
                 : "memory");
}
// The mbarriers of 6 (kMbar): init, arrive, wait for a phase's completion (parity), and an arrive
// that fires once all of this thread's earlier cp.async have landed.
__device__ inline void mbar_init(std::uint32_t bar, int count) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(count) : "memory");
}
__device__ inline void mbar_arrive(std::uint32_t bar) {
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(bar) : "memory");
}
__device__ inline void mbar_wait(std::uint32_t bar, std::uint32_t parity) {
    asm volatile(
        "{\n .reg .pred done;\n WAIT:\n mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
        " @!done bra WAIT;\n}\n" ::"r"(bar),
        "r"(parity)
        : "memory");
}
__device__ inline void cp_async_arrive(std::uint32_t bar) {
    asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];\n" ::"r"(bar) : "memory");
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

    // Grouped rasterization: consecutive C tiles walk down kGroupM block rows, then move one block column
    // right. A block computes C tile blockIdx.x (kPersistent: then + gridDim.x, ... while < tiles).
    const int blocks_m = (M + BM - 1) / BM, blocks_n = (N + BN - 1) / BN, tiles = blocks_m * blocks_n;
    auto origin = [&](int tile, int& row0, int& col0) {  // M, N % 128 == 0: a 256 tile may hang 128 past
        const int per_group = T::kGroupM * blocks_n;
        const int first_m = (tile / per_group) * T::kGroupM;
        const int group_rows = min(blocks_m - first_m, T::kGroupM);
        const int in_group = tile % per_group;
        row0 = (first_m + in_group % group_rows) * BM, col0 = (in_group / group_rows) * BN;
    };

    // Copy assignments: chunk t + i * kThreads of each tile. A: row a_row + i * kRowStepA, chunk a_chunk;
    // B: row b_row + i * kRowStepB, chunk b_chunk. B chunks past N are skipped (nobody stores what they
    // feed), and so are A rows past M (only a 256-row tile has them: M % 128 == 0).
    const int a_row = t / T::kRowChunksA, a_chunk = t % T::kRowChunksA;
    const int b_row = t / T::kRowChunksB, b_chunk = t % T::kRowChunksB;
    const int ktiles = (K + BK - 1) / BK;
    // The C tile whose K tiles the copies fetch (kPersistent: it runs ahead of the one computed).
    int copy_tile = blockIdx.x, copy_kt = 0;
    bool b_in;                          // this thread's B column exists
    int a_rows;                         // rows of the tile inside M
    const __nv_bfloat16 *gA, *gB;       // this thread's first chunks in K tile 0
    auto set_copy_origin = [&](int tile) {
        int row0, col0;
        origin(tile, row0, col0);
        b_in = col0 + b_chunk * kChunk < N;
        a_rows = min(BM, M - row0);
        gA = A + std::size_t(row0 + a_row) * K + a_chunk * kChunk;
        gB = B + std::size_t(b_row) * N + col0 + b_chunk * kChunk;
    };
    set_copy_origin(copy_tile);
    const int strideA = T::kRowStepA * K;  // elements between a thread's A chunks (< 2^31: lab shapes)
    // Byte offsets inside a stage; rows kRowStep further down keep the same swizzle.
    const std::uint32_t dstA = T::swizzle_a(a_row, a_chunk) * kBf16;
    const std::uint32_t dstB = kOffB + T::swizzle_b(b_row, b_chunk) * kBf16;

    // What every copy of one K tile shares, worked out once per tile (a few registers), so that each
    // 16-byte copy costs one address multiply-add and the cp.async: no branch, no test per chunk. The K
    // tail (K % BK != 0): A's chunks past K are zero-filled (src_bytes 0) from a valid address, and B's
    // rows past K repeat row K-1, finite values that meet A's zeros; the products are 0. Tiles past the
    // last (the pipeline's last S-1 refills) copy nothing (src_bytes 0) into slots nobody reads again.
    struct TileCopy {
        const __nv_bfloat16* a;  // this thread's first A chunk of the tile
        const __nv_bfloat16* b;  // its first B chunk
        std::uint32_t a_bytes, b_bytes;
        int b_last;  // last valid B row of the tile, counted from b_row
    };
    auto plan_tile = [&](int kt, bool live) {
        const int tile = live ? kt : ktiles - 1;
        const int k_valid = min(K - tile * BK, BK);                           // 32 .. BK
        const int a_back = max(0, a_chunk * kChunk - (k_valid - kChunk));     // > 0: chunk past K
        return TileCopy{gA + tile * BK - a_back, gB + std::size_t(tile) * (BK * N),
                        live && a_back == 0 ? 16u : 0u, live ? 16u : 0u, k_valid - 1 - b_row};
    };
    // Copies [first, last) of the tile's kChunksA + kChunksB (A's first), into the stage at `base`.
    auto copy_chunks = [&](std::uint32_t base, const TileCopy& p, int first, int last) {
#pragma unroll
        for (int c = 0; c < T::kChunksA + T::kChunksB; ++c) {
            if (c < first || c >= last) continue;  // resolved at compile time
            if (c < T::kChunksA) {
                if (BM <= 128 || a_row + c * T::kRowStepA < a_rows)  // compile-time true for BM <= 128
                    cp_async_16(base + dstA + c * T::kRowStepA * BK * kBf16, p.a + c * strideA, p.a_bytes);
            } else if (b_in) {
                const int i = c - T::kChunksA;
                cp_async_16(base + dstB + i * T::kRowStepB * BN * kBf16,
                            p.b + std::size_t(min(i * T::kRowStepB, p.b_last)) * N, p.b_bytes);
            }
        }
    };
    constexpr int kCopies = T::kChunksA + T::kChunksB;
    // kPersistent: the copy origin moves on by one K tile, into the next C tile after the last.
    auto advance_copy = [&] {
        if (++copy_kt == ktiles) {
            copy_kt = 0;
            copy_tile += gridDim.x;
            if (copy_tile < tiles) set_copy_origin(copy_tile);
        }
    };

    // ldmatrix addresses of this lane (see rung 8 for which lane points where), swizzled. w_m, mi * 16
    // are multiples of 16 and w_n a multiple of 64 (8 chunks), so the swizzle depends on the lane only:
    // per-lane offsets for the k16 steps of A and the n16 pairs of B, compile-time offsets for the rest.
    // Step s and pair nj only flip chunk bits: chunk (2s + lane/16) ^ r = (lane/16 ^ r) ^ 2s, since 2s is
    // even and r < 8, so one offset per operand serves all (4 registers fewer for the loop).
    const std::uint32_t fragA = T::swizzle_a(w_m + lane % 16, lane / 16) * kBf16;  // byte offsets in a stage
    const std::uint32_t fragB = kOffB + T::swizzle_b(lane % 8 + ((lane / 8) % 2) * 8, w_n / kChunk + lane / 16) * kBf16;
    static_assert(2 * kSteps <= T::kRowChunksA && T::NI <= 8, "the flipped bits stay inside a row's chunks");

    std::uint32_t fA[2][MI][4], fB[2][NI / 2][4];  // double-buffered fragments
    auto load_frags = [&](int buf, std::uint32_t stage_base, int s) {
#pragma unroll
        for (int mi = 0; mi < MI; ++mi) ldmatrix_x4(fA[buf][mi], stage_base + (fragA ^ (2 * s * 16)) + mi * 16 * BK * kBf16);
#pragma unroll
        for (int nj = 0; nj < NI / 2; ++nj)  // one x4.trans = two n8 tiles x two k8 halves
            ldmatrix_x4_trans(fB[buf][nj], stage_base + (fragB ^ (2 * nj * 16)) + s * 16 * BN * kBf16);
    };

    // kMbar: bar_landed[i] completes when every thread's copies of the tile in stage i are in, bar_read[i]
    // when every thread has done its ldmatrix of it; use u of stage i (tile u * S + i) is phase u.
    const std::uint32_t bar_landed = sbase + T::kOffBars, bar_read = bar_landed + 8 * kStages;
    if constexpr (T::kMbar) {
        if (t == 0)
            for (int i = 0; i < kStages; ++i) mbar_init(bar_landed + 8 * i, T::kThreads), mbar_init(bar_read + 8 * i, T::kThreads);
        __syncthreads();
    }

#pragma unroll
    for (int s = 0; s < T::kAhead; ++s) {  // prologue: tiles 0 .. kAhead-1 in flight
        if constexpr (T::kPersistent) {
            copy_chunks(sbase + s * T::kStageBytes, plan_tile(copy_kt, copy_tile < tiles), 0, kCopies);
            advance_copy();
        } else {
            copy_chunks(sbase + s * T::kStageBytes, plan_tile(s, s < ktiles), 0, kCopies);
        }
        cp_async_commit();  // one group per tile, an empty tile's too: the wait counts stay right
        if constexpr (T::kMbar) cp_async_arrive(bar_landed + 8 * s);
    }
    if constexpr (T::kMbar) {
        mbar_wait(bar_landed, 0);  // tile 0 has landed, everyone's copies
    } else {
        cp_async_wait<kStages - 2>();  // tile 0 has landed ...
        __syncthreads();               // ... for everyone
    }

    std::uint32_t read_stage = 0, write_stage = T::kAhead;
    load_frags(0, sbase, 0);

    TileCopy copy{};
    float acc[MI][NI][4];
    // The mma of k16 step s on mi rows [first, last) of the warp tile.
    auto mma_rows = [&](int s, int first, int last) {
#pragma unroll
        for (int mi = 0; mi < MI; ++mi)
            if (mi >= first && mi < last)  // resolved at compile time
#pragma unroll
                for (int ni = 0; ni < NI; ++ni)
                    mma_bf16_16816(acc[mi][ni], fA[s % 2][mi], fB[s % 2][ni / 2][2 * (ni % 2)],
                                   fB[s % 2][ni / 2][2 * (ni % 2) + 1]);
    };
    // The K loop of one C tile. kRowsFirst > 0 (see 5): each k16 step starts with the mma of its first
    // kRowsFirst mi rows, before the step's ldmatrix, copies and (last step) barrier; the rest follow.
    auto k_loop = [&](auto rows_first) {
        constexpr int kRowsFirst = decltype(rows_first)::value;
        for (int kt = 0; kt < ktiles; ++kt) {
#pragma unroll
            for (int s = 0; s < kSteps; ++s) {
                mma_rows(s, 0, kRowsFirst);
                if (s == kSteps - 1) {
                    // The last k16 step of tile kt: its fragments are already in registers. Wait for
                    // tile kt+1 (groups committed: S-1 + kt+1; tiles 0 .. kt+1 done leaves S-2 pending)
                    // and make it visible; after this barrier nobody reads tile kt's slot again.
                    if constexpr (T::kMbar) {  // tile kt+1's copies, everyone's
                        mbar_wait(bar_landed + 8 * (read_stage + 1 == kStages ? 0 : read_stage + 1), ((kt + 1) / kStages) & 1);
                    } else {
                        cp_async_wait<kStages - 2>();
                        __syncthreads();
                    }
                    read_stage = read_stage + 1 == kStages ? 0 : read_stage + 1;
                }
                // Fragments of the next k16 step (past the last K tile: the next C tile's first, or harmless
                // reads of a stale slot).
                load_frags((s + 1) % 2, sbase + read_stage * T::kStageBytes, (s + 1) % kSteps);
                if (s < T::kCopySteps) {
                    // Refill the slot of tile kt-1 with tile kt+S-1 (kMbar: of tile kt-2 with kt+S-2), a
                    // share of its copies per k16 step: every warp passed the barrier at the end of tile
                    // kt-1, after its last ldmatrix of that tile. One group per tile, committed before the
                    // wait of the tile's last step.
                    if constexpr (T::kMbar) {
                        if (s == 0) {
                            // This thread is done with tile kt-1 (its step-3 fragments fed the mma); the
                            // slot refilled now held tile kt+kAhead-S, read by everyone a tile ago.
                            if (kt > 0) mbar_arrive(bar_read + 8 * (read_stage == 0 ? kStages - 1 : read_stage - 1));
                            const int next = kt + T::kAhead;
                            if (next >= kStages) mbar_wait(bar_read + 8 * write_stage, (next / kStages - 1) & 1);
                        }
                    }
                    if (s == 0)
                        copy = T::kPersistent ? plan_tile(copy_kt, copy_tile < tiles)
                                              : plan_tile(kt + T::kAhead, kt + T::kAhead < ktiles);
                    copy_chunks(sbase + write_stage * T::kStageBytes, copy, s * kCopies / T::kCopySteps,
                                (s + 1) * kCopies / T::kCopySteps);
                    if (s == T::kCopySteps - 1) {
                        cp_async_commit();
                        if constexpr (T::kMbar) cp_async_arrive(bar_landed + 8 * write_stage);
                        write_stage = write_stage + 1 == kStages ? 0 : write_stage + 1;
                        if constexpr (T::kPersistent) advance_copy();
                    }
                }
                mma_rows(s, kRowsFirst, MI);
            }
        }
    };
    // 5. The second warp row (warps kWarpsN .. 2 kWarpsN-1) runs kLead mi rows of mma ahead of the first
    // within each k16 step. Warps w and w+4 share a scheduler and its tensor pipe; with equal code they
    // move in step, reach their ldmatrix and copies together, and the pipe idles while both are there.
    // With the lead, one warp's ldmatrix and copies fall inside the other's mma. Both rows still issue
    // 128 mma between two barriers, so neither waits longer at them.
    const bool leads = T::kLead > 0 && warp / T::kWarpsN == 1;

    for (int tile = blockIdx.x; tile < tiles; tile += gridDim.x) {  // once unless kPersistent
#pragma unroll
        for (int mi = 0; mi < MI; ++mi)
#pragma unroll
            for (int ni = 0; ni < NI; ++ni)
#pragma unroll
                for (int e = 0; e < 4; ++e) acc[mi][ni][e] = 0.f;
        if (leads)  // warp-uniform: each warp passes the same barriers, from its own copy of the loop
            k_loop(std::integral_constant<int, T::kLead>{});
        else
            k_loop(std::integral_constant<int, 0>{});

        // Accumulator layout of m16n8: lane holds rows lane/4 and lane/4 + 8, columns 2*(lane%4) and +1.
        const int g = lane / 4, q = lane % 4;
        int row0, col0;
        origin(tile, row0, col0);
        if constexpr (!T::kPersistent) cp_async_wait<0>();  // only empty groups remain
        if constexpr (!T::kSmemEpilogue) {
            // This warp's columns or rows may lie past N or M (a 256-wide tile at the last block column or row).
            if (col0 + w_n < N && row0 + w_m < M) {
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
            }
        } else {
            // C tile [BM][BN] bf16 in the (now idle) stages, or kPersistent in its own buffer, chunks
            // swizzled by row % 8 so that the 8 rows one 4-byte store instruction touches fall in 8
            // different bank groups; then 16-byte stores by consecutive threads along each row of C.
            // kPersistent: the K loop's barriers separate the last epilogue's reads from these writes.
            if constexpr (!T::kPersistent) __syncthreads();  // every warp is done with its (stale) ldmatrix reads
            auto* ctile = reinterpret_cast<__nv_bfloat16*>(smem + T::kOffC);
            auto at = [&](int row, int col) { return row * BN + (((col / kChunk) ^ (row & 7)) * kChunk) + col % kChunk; };
#pragma unroll
            for (int mi = 0; mi < MI; ++mi)
#pragma unroll
                for (int ni = 0; ni < NI; ++ni) {
                    const int r = w_m + mi * 16 + g, c = w_n + ni * 8 + 2 * q;
                    *reinterpret_cast<__nv_bfloat162*>(ctile + at(r, c)) =
                        __floats2bfloat162_rn(acc[mi][ni][0], acc[mi][ni][1]);
                    *reinterpret_cast<__nv_bfloat162*>(ctile + at(r + 8, c)) =
                        __floats2bfloat162_rn(acc[mi][ni][2], acc[mi][ni][3]);
                }
            __syncthreads();
            constexpr int kRowChunksC = BN / kChunk;
#pragma unroll 4
            for (int i = t; i < BM * kRowChunksC; i += T::kThreads) {
                const int r = i / kRowChunksC, c = (i % kRowChunksC) * kChunk;
                if (row0 + r < M && col0 + c < N)
                    *reinterpret_cast<uint4*>(C + std::size_t(row0 + r) * N + col0 + c) =
                        *reinterpret_cast<const uint4*>(ctile + at(r, c));
            }
        }
    }  // C tiles
    if constexpr (T::kPersistent) cp_async_wait<0>();  // only empty groups remain
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
    const int tiles = ((M + T::BM - 1) / T::BM) * ((N + T::BN - 1) / T::BN);
    int blocks = tiles;
    if constexpr (T::kPersistent) {  // as many blocks as fit on the GPU at once, each walking its tiles
        static const int resident = [] {
            int device = 0, sms = 0, per_sm = 0;
            cudaGetDevice(&device);
            cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
            cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, gemm_pipelined<T>, T::kThreads, T::kSmemBytes);
            return sms * (per_sm > 0 ? per_sm : 1);
        }();
        blocks = tiles < resident ? tiles : resident;
    }
    gemm_pipelined<T><<<blocks, T::kThreads, T::kSmemBytes, stream>>>(A, B, C, M, N, K);
}

void launch_pipelined(const __nv_bfloat16* A, const __nv_bfloat16* B, __nv_bfloat16* C, int M, int N, int K,
                      cudaStream_t stream) {
    launch_tiles<Shipped>(A, B, C, M, N, K, stream);
}

}  // namespace rung9_before
