// The design of solutions/03-gemm/kernels/09_pipelined.cu, shared with the lab's open rung
// (kernels/10_open_gemm.cu), which reuses it as our reference; each file registers it under its own name.
#pragma once
// Rung 9: a multi-stage cp.async pipeline over swizzled shared memory. The
// same mma.sync.m16n8k16 / ldmatrix inner loop as rung 8 (bf16 in, fp32
// accumulate, bf16 out); what changes is how the operands reach it.
//
//   block tile 128 x 256, K step 64, 256 threads = 2 x 4 warps;
//   warp tile 64 x 64 = 4 x 8 mma tiles of 16 x 8, four k16 steps per K step;
//   per warp and k16 step: 4 ldmatrix.x4 for A, 4 ldmatrix.x4.trans for B,
//   32 mma (rung 8: 6 ldmatrix for 16 mma).
//
// 1. Software pipelining. Shared memory holds kStages = 3 tiles of A and B.
//    cp.async copies global -> shared directly (no register staging, no
//    thread waits for the data it asked for). While the block computes tile
//    kt, tiles kt+1 and kt+2 are in flight: the ~1 us of global-memory
//    latency is covered by two tiles' worth of mma work (~2 us). One
//    __syncthreads per K step of 64, i.e. per 128 mma of each warp.
//       prologue: issue tiles 0 .. S-2; wait for tile 0; barrier
//       for kt:   issue tile kt+S-1 into the slot tile kt-1 used;
//                 compute tile kt; at its last k16 step, wait for tile
//                 kt+1 (cp.async.wait_group S-2) and barrier.
//    The fragments of k16 step s+1 (or of the next tile's step 0) are
//    loaded while the mma of step s run, so no mma waits on shared memory.
//
// 2. An XOR swizzle on the 16-byte chunks of each shared tile, so that every
//    8-lane phase of ldmatrix touches 8 different 16-byte bank groups:
//      A tile [128][64] bf16 (rows of 128 B = 8 chunks):  physical chunk = chunk ^ (row % 8)
//      B tile [64][256] bf16 (rows of 512 B = 32 chunks): physical chunk = chunk ^ (row % 8)
//    Rung 8's 4-way (A) and 8-way (B) ldmatrix conflicts disappear; the
//    cp.async writes stay conflict-free too. Swizzling costs no extra shared
//    memory.
//
// 3. The copies. Thread t copies chunk t % 8 of A's rows t / 8 + 32i
//    (i < 4) and chunk t % 32 of B's rows t / 32 + 8i (i < 8): a warp's
//    cp.async covers whole 128-byte lines of a row of A or B. What the
//    copies of one K tile share (its K offset, the K and N edges of 4) is
//    worked out once per tile; each copy is then one multiply-add (the row
//    stride times i) and the cp.async, with no branch and no test. The 12
//    copies of tile kt+2 go out at the first k16 step of tile kt, in one
//    block with that step's ldmatrix, before its 32 mma.
//
// 4. The edges. lab.yaml hands M and N in multiples of 128 and K in
//    multiples of 32, not of 64: the last K tile may hold 32 valid columns of
//    A and rows of B, and the last block column 128 valid columns of C.
//    cp.async's src-size operand (0 instead of 16) writes zeros: for A's
//    chunks past K and B's rows past K (0 x 0 adds nothing; an unwritten
//    chunk could hold a stale NaN, and 0 x NaN is NaN), and for B's columns
//    past N, whose C columns nobody stores. Each such copy still names a
//    valid address (4 chunks to the left, the last valid row of B, 128
//    columns to the left).
//
// Why 128 x 256 and 64 x 64 per warp: a square warp tile needs the fewest
// ldmatrix per mma (one x4 per 4 mma; rung 8's 64 x 32 tile needs 1.5), and
// the larger block tile cuts the global/L2 bytes per FLOP by a third (48 KiB
// per 4.2 MFLOP instead of 32 KiB per 2.1 MFLOP), which matters at ~6 TB/s
// of L2 traffic. The price is registers: 128 fp32 accumulators + 64
// fragment registers per thread, so one block (8 warps) per SM; latency is
// hidden by the 32 independent mma per k16 step and the pipeline, not by
// occupancy. 3 stages x 48 KiB = 144 KiB of dynamic shared memory. C leaves
// through shared memory (the idle stages) in 16-byte stores.
// Blocks are rasterized in groups of 16 block rows (2048 rows of C x ~8
// block columns per wave of 132 blocks), so a wave reuses its A and B panels
// from L2 instead of sweeping all of B.
//
// What was measured on the way (H200, 2026-12-01; the tables are in
// results/2026-12-01-h200-runs57-60.md, results/2026-12-01-h200-runs62-65.md,
// results/2026-12-01-h200-runs66-69.md and results/2026-12-01-h200-runs70-82.md; percentages of the
// mma.sync roof that `roofline ceilings` measures in the same device call):
//   - K step 32, 4 stages, C stored from the accumulators: 70.2%. K step 64 and 3 stages: +1-2%;
//     C through shared memory in 16-byte stores: +6%, 72.3%. Other tile shapes (256 x 128,
//     128 x 128 with two blocks an SM), K step 128, more stages: all lower.
//   - The copies of the next tile without a branch or a bound check per chunk, spread over three
//     k16 steps: 73.3%, then 75.6% with the ldmatrix addresses as one lane offset XORed per step.
//     ncu on that kernel: tensor pipe busy 75%; a warp's stall samples 65% on the mma (math
//     throttle, fixed-latency wait) and 24% on the ~80 address and copy instructions between them.
//   - Tried and dropped, each lower or level: the second warp row running half a k16 step ahead of
//     the first (-12 to -14%), mbarriers instead of the block barrier (-2 to -3%), a persistent
//     grid (+0.3%), the ldmatrix and copies threaded between the rows of mma instead of before
//     them (-1 to -10%), 128 x 128 tiles two blocks an SM (-3%).
//   - A copy as one multiply-add (3): +1.5 to +2.6% over the 75.6% kernel in five probe runs. ncu: the
//     shared-memory pipe 78% busy (ldmatrix and cp.async writes), the tensor pipe ~76%; 6% of the
//     samples on address additions waiting for a cp.async to read the register they overwrite.
//   - Copies along a row instead (A rows t/4 and t/4 + 64, B row t/4, four lanes a 64-byte run), so
//     that a thread's copies differ by constants the compiler puts in the instruction: no faster
//     (-0.4% against the 75.6% kernel), the per-tile setup as long as before and half-lines per
//     warp instruction.
//   - All 12 copies at the first k16 step instead of 4 at each of the first three: +0.2-0.4%.
//   - Stream-K for the last wave (the 3.88 waves of 512 tiles on 132 SMs leave 16 SMs idle for the
//     last tile time, ~3%): the remainder's K tiles split evenly over one block an SM, partial sums
//     handed over through global memory. Level with the same kernel without it (-0.6%): each block
//     pays one more pipeline fill, the partial sums go out and back through L2, and the loop over
//     work items cost registers (255 and spills).
//   - Where the rest goes (timing-only forms, which compute a wrong C): without its copies the
//     kernel runs 10% faster, at 85-89% of the roof; without the barrier as well, no faster. The
//     roof kernel with 8 warps an SM (this kernel's occupancy) reaches the roof of 32 warps. So
//     ldmatrix and mma alone come within the 3.88 waves' and each block's fill and epilogue of the
//     roof; the copies cost the 10%: each cp.async of 512 bytes a warp goes through the same
//     shared-memory pipe as the ldmatrix (ncu: that pipe 78% busy), and the mma wait behind it.
//   - The copies taken off the warps (probes, not this rung). The TMA unit filling each stage,
//     issued by thread 0 (scripts/probes/rung9_tma.cuh at commit 4382e25): -10%, warp 0 carries
//     the issue on top of its mma and the other warps wait for it at the barrier. A producer
//     warpgroup of its own doing that, the mma warps on mbarriers instead of the block barrier
//     (scripts/probes/rung9_ws.cuh, lab 06's design): +6.5-6.8%, 82.5% of the mma.sync roof
//     (run 82), tensor pipe 83.8%. So 80% of the roof is reachable under mma.sync, but not with
//     cp.async: this rung's copies cost what they cost because each is a warp instruction.
//
// Prediction for the shipped kernel (written before its grading), 4096^3 on the H200: +2% over
// the 75.6% kernel, ~497 TFLOP/s, ~77% of the mma.sync roof, ~64% of cuBLAS.
// Measured (runs 76 and 82, results/2026-12-01-h200-runs70-82.md): 275.2 / 276.1 us, 499.4 / 497.8
// TFLOP/s, 77.6 / 77.4% of the mma.sync roof (643.6 / 642.7), 65.1 / 64.6% of cuBLAS. The goal,
// 80% of the roof, is not met.
//
// The shape of the kernel is one line: `Shipped` below. scripts/probes/rung9_variants.cu times
// its options beside cuBLAS and the mma.sync roof in one run.
#include "roofline/contract/gemm.cuh"
#include "roofline/ptx/mma_sync.cuh"

#include <cstdint>

namespace {

using namespace roofline::gemm::mma;  // smem_addr, ldmatrix_x4(_trans), mma_bf16_16816

// Timing-only forms of the kernel for scripts/probes/rung9_variants.cu, which compute a wrong C:
// kNoCopies, the K loop without its copies (each tile reads whatever the prologue left in its
// slot); kNoCopiesNoBarrier, also without the wait and barrier: ldmatrix and mma alone. What each
// removed part costs is the step between two rows of the probe's table.
constexpr int kComplete = 0, kNoCopies = 1, kNoCopiesNoBarrier = 2;

// The kernel's options: kStages shared tiles; kCopySteps, the k16 steps of a tile that carry the
// copies of a later one (1: all 12 before the first step's mma); kForm, kComplete but in the probe.
template <int kStages_, int kCopySteps_, int kForm_ = kComplete>
struct Tiles {
    static constexpr int BM = 128, BN = 256, BK = 64, WM = 64, WN = 64;
    static constexpr int kStages = kStages_, kCopySteps = kCopySteps_, kForm = kForm_;
    static constexpr int kGroupM = 16;                          // block rows per raster group
    static constexpr int kWarpsM = BM / WM, kWarpsN = BN / WN;
    static constexpr int kThreads = 32 * kWarpsM * kWarpsN;     // 256
    static constexpr int MI = WM / 16, NI = WN / 8;             // mma tiles per warp: 4 x 8
    static constexpr int kSteps = BK / 16;                      // k16 steps per K step
    static constexpr int kChunk = 8;                            // bf16 per 16-byte chunk
    static constexpr int kTileA = BM * BK, kTileB = BK * BN;    // elements per stage
    static constexpr int kRowChunksA = BK / kChunk, kRowChunksB = BN / kChunk;
    static constexpr int kChunksA = kTileA / kChunk / kThreads, kChunksB = kTileB / kChunk / kThreads;  // 4, 8
    static constexpr int kCopies = kChunksA + kChunksB;         // a thread's copies per K tile
    static constexpr int kRowStepA = kThreads / kRowChunksA, kRowStepB = kThreads / kRowChunksB;  // 32, 8
    static constexpr int kStageBytes = (kTileA + kTileB) * int(sizeof(__nv_bfloat16));  // A then B
    static constexpr int kSmemBytes = kStages * kStageBytes;
    static_assert(kChunksA * kThreads * kChunk == kTileA && kChunksB * kThreads * kChunk == kTileB);
    static_assert(kRowStepA % 8 == 0 && kRowStepB % 8 == 0, "a thread's chunks share one swizzle pattern");
    static_assert(kRowChunksA == 8 && NI <= 8, "A rows of 8 chunks; step and pair bits stay inside them");
    static_assert(kChunksB == 8 && kRowStepB == 8, "a K tail (32 of 64): B's copies 0-3 read rows 0-31");
    static_assert(kCopySteps >= 1 && kCopySteps < kSteps, "a tile's copies are committed before the wait");
    static_assert(kSteps % 2 == 0, "B's buffer (s + 1) % 2 of the last step is the next tile's step 0");
    static_assert(BM * BN * int(sizeof(__nv_bfloat16)) <= kSmemBytes, "C tile fits the stages");

    // Element offset of chunk `chunk` of row `row` inside one stage's A or B tile.
    __host__ __device__ static constexpr int swizzle_a(int row, int chunk) {
        return row * BK + (chunk ^ (row & 7)) * kChunk;
    }
    __host__ __device__ static constexpr int swizzle_b(int row, int chunk) {
        return row * BN + (chunk ^ (row & 7)) * kChunk;
    }
};

// The shape this rung ships; the probe's table names the alternatives, and switching is this line.
using Shipped = Tiles<3, 1>;

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

// The epilogue: the C tile [BM][BN] bf16 through `smem` (the stages, idle by now: the caller
// makes sure), chunks swizzled by row % 8 so that the 8 rows one 4-byte store instruction touches
// fall in 8 different bank groups; then 16-byte stores by consecutive threads along each row of C.
// Accumulator layout of m16n8: lane holds rows lane/4 and lane/4 + 8, columns 2*(lane%4) and +1.
// t: the thread's index among the kThreads that hold the accumulators; sync(): their barrier.
template <class T, class Sync>
__device__ inline void store_c(unsigned char* smem, const float (&acc)[T::MI][T::NI][4], __nv_bfloat16* C, int N,
                               int row0, int col0, int t, int w_m, int w_n, Sync sync) {
    constexpr int BN = T::BN, kChunk = T::kChunk;
    const int lane = t % 32, g = lane / 4, q = lane % 4;
    auto* ctile = reinterpret_cast<__nv_bfloat16*>(smem);
    auto at = [&](int row, int col) { return row * BN + (((col / kChunk) ^ (row & 7)) * kChunk) + col % kChunk; };
#pragma unroll
    for (int mi = 0; mi < T::MI; ++mi)
#pragma unroll
        for (int ni = 0; ni < T::NI; ++ni) {
            const int r = w_m + mi * 16 + g, c = w_n + ni * 8 + 2 * q;
            *reinterpret_cast<__nv_bfloat162*>(ctile + at(r, c)) = __floats2bfloat162_rn(acc[mi][ni][0], acc[mi][ni][1]);
            *reinterpret_cast<__nv_bfloat162*>(ctile + at(r + 8, c)) =
                __floats2bfloat162_rn(acc[mi][ni][2], acc[mi][ni][3]);
        }
    sync();
    constexpr int kRowChunksC = BN / kChunk;
#pragma unroll 4
    for (int i = t; i < T::BM * kRowChunksC; i += T::kThreads) {
        const int r = i / kRowChunksC, c = (i % kRowChunksC) * kChunk;
        if (col0 + c < N)  // rows: M % 128 == 0
            *reinterpret_cast<uint4*>(C + std::size_t(row0 + r) * N + col0 + c) =
                *reinterpret_cast<const uint4*>(ctile + at(r, c));
    }
}

template <class T>
__global__ __launch_bounds__(T::kThreads, 1) void gemm_pipelined(const __nv_bfloat16* A, const __nv_bfloat16* B,
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

    // Grouped rasterization: consecutive blocks walk down kGroupM block rows, then one block column right.
    const int blocks_m = M / BM, blocks_n = (N + BN - 1) / BN;  // M % 128 == 0; N % 128 == 0
    const int per_group = T::kGroupM * blocks_n;
    const int first_m = (int(blockIdx.x) / per_group) * T::kGroupM;
    const int group_rows = min(blocks_m - first_m, T::kGroupM);
    const int in_group = int(blockIdx.x) % per_group;
    const int row0 = (first_m + in_group % group_rows) * BM, col0 = (in_group / group_rows) * BN;

    // Copy assignments: chunk t + i * kThreads of each tile. A: row a_row + i * kRowStepA, chunk a_chunk;
    // B: row b_row + i * kRowStepB, chunk b_chunk. A thread whose B column lies past N (the last block
    // column when N % 256 == 128) copies zeros from the chunk 128 columns to the left.
    const int a_row = t / T::kRowChunksA, a_chunk = t % T::kRowChunksA;
    const int b_row = t / T::kRowChunksB, b_chunk = t % T::kRowChunksB;
    const int ktiles = (K + BK - 1) / BK;
    const bool b_in = col0 + b_chunk * kChunk < N;
    const auto* a_src = reinterpret_cast<const char*>(A + std::size_t(row0 + a_row) * K + a_chunk * kChunk);
    const auto* b_src = reinterpret_cast<const char*>(B + std::size_t(b_row) * N + col0 + b_chunk * kChunk -
                                                      (b_in ? 0 : 128));
    const int a_stride = T::kRowStepA * K * kBf16, b_stride = T::kRowStepB * N * kBf16;  // bytes between copies
    // Byte offsets inside a stage; rows kRowStep further down keep the same swizzle.
    const std::uint32_t dstA = T::swizzle_a(a_row, a_chunk) * kBf16;
    const std::uint32_t dstB = kOffB + T::swizzle_b(b_row, b_chunk) * kBf16;

    // What the copies of K tile kt share (4): where A's and B's start, and the bytes each copy reads.
    // In a K tail of 32, A's chunks 4-7 and B's copies 4-7 (rows 32-63) read nothing. The pipeline's
    // last S-1 refills, past the last tile, copy the last tile again into slots nobody reads: no
    // test per copy.
    struct TileCopy {
        const char *a, *b_lo, *b_hi;  // b_hi: B's copies 4-7
        std::uint32_t a_bytes, b_lo_bytes, b_hi_bytes;
        std::uint32_t dst;  // the stage
    };
    auto plan_tile = [&](int kt, std::uint32_t stage) {
        kt = min(kt, ktiles - 1);
        const bool tail = kt == ktiles - 1 && K % BK != 0;
        const bool a_out = tail && a_chunk * kChunk >= BK / 2;
        TileCopy p;
        p.a = a_src + std::size_t(kt) * (BK * kBf16) - (a_out ? BK / 2 * kBf16 : 0);
        p.b_lo = b_src + std::size_t(kt) * BK * N * kBf16;
        p.b_hi = tail ? p.b_lo : p.b_lo + std::size_t(T::kChunksB / 2) * b_stride;
        p.a_bytes = a_out ? 0u : 16u;
        p.b_lo_bytes = b_in ? 16u : 0u;
        p.b_hi_bytes = b_in && !tail ? 16u : 0u;
        p.dst = sbase + stage * T::kStageBytes;
        return p;
    };
    // Copy c of a tile (A's first): one multiply-add for the address and the cp.async.
    auto copy_one = [&](const TileCopy& p, int c) {
        if (c < T::kChunksA) {
            cp_async_16(p.dst + dstA + c * T::kRowStepA * BK * kBf16, p.a + c * a_stride, p.a_bytes);
        } else {
            const int i = c - T::kChunksA, half = T::kChunksB / 2;
            cp_async_16(p.dst + dstB + i * T::kRowStepB * BN * kBf16,
                        (i < half ? p.b_lo : p.b_hi) + (i % half) * b_stride, i < half ? p.b_lo_bytes : p.b_hi_bytes);
        }
    };

    // ldmatrix addresses of this lane (see rung 8 for which lane points where), swizzled. w_m, mi * 16
    // are multiples of 16 and w_n a multiple of 64 (8 chunks), so the swizzle depends on the lane only:
    // step s and pair nj only flip chunk bits, chunk (2s + lane/16) ^ r = (lane/16 ^ r) ^ 2s.
    const std::uint32_t fragA = T::swizzle_a(w_m + lane % 16, lane / 16) * kBf16;  // byte offsets in a stage
    const std::uint32_t fragB = kOffB + T::swizzle_b(lane % 8 + ((lane / 8) % 2) * 8, w_n / kChunk + lane / 16) * kBf16;

    std::uint32_t fA[2][MI][4], fB[2][NI / 2][4];  // two sets: one feeds the mma, the other is loaded
    auto load_a = [&](int buf, std::uint32_t stage_base, int s, int mi) {
        ldmatrix_x4(fA[buf][mi], stage_base + (fragA ^ (2 * s * 16)) + mi * 16 * BK * kBf16);
    };
    auto load_b = [&](int buf, std::uint32_t stage_base, int s, int nj) {  // one x4.trans: two n8 tiles x two k8 halves
        ldmatrix_x4_trans(fB[buf][nj], stage_base + (fragB ^ (2 * nj * 16)) + s * 16 * BN * kBf16);
    };
    float acc[MI][NI][4];
#pragma unroll
    for (int mi = 0; mi < MI; ++mi)
#pragma unroll
        for (int ni = 0; ni < NI; ++ni)
#pragma unroll
            for (int e = 0; e < 4; ++e) acc[mi][ni][e] = 0.f;
    auto mma_row = [&](int buf, int mi) {
#pragma unroll
        for (int ni = 0; ni < NI; ++ni)
            mma_bf16_16816(acc[mi][ni], fA[buf][mi], fB[buf][ni / 2][2 * (ni % 2)], fB[buf][ni / 2][2 * (ni % 2) + 1]);
    };

    // Prologue: tiles 0 .. S-2 in flight, one commit group each (an empty tile's too, so that the wait
    // counts stay right); tile 0 landed for everyone; step 0's fragments.
    // (The timing-only forms fill every slot, so that no mma reads never-written, maybe zero, data:
    // tensor cores run faster on zeros.)
    constexpr int kFilled = T::kForm == kComplete ? kStages - 1 : kStages;
#pragma unroll
    for (int s = 0; s < kFilled; ++s) {
        const TileCopy p = plan_tile(s, s);
#pragma unroll
        for (int c = 0; c < T::kCopies; ++c) copy_one(p, c);
        cp_async_commit();
    }
    cp_async_wait<T::kForm == kComplete ? kStages - 2 : 0>();
    __syncthreads();
#pragma unroll
    for (int mi = 0; mi < MI; ++mi) load_a(0, sbase, 0, mi);
#pragma unroll
    for (int nj = 0; nj < NI / 2; ++nj) load_b(0, sbase, 0, nj);

    std::uint32_t read_stage = 0, write_stage = kStages - 1;
    for (int kt = 0; kt < ktiles; ++kt) {
        // Tile kt+S-1 goes into the slot tile kt-1 used: every warp passed the barrier at the end of tile
        // kt-1 after its last ldmatrix of it.
        const TileCopy copy = plan_tile(kt + kStages - 1, write_stage);
#pragma unroll
        for (int s = 0; s < kSteps; ++s) {
            if (s == kSteps - 1) {
                // The last k16 step: its fragments are in registers. Wait for tile kt+1 (groups committed:
                // S-1 + kt+1; tiles 0 .. kt+1 done leaves S-2 pending) and make it visible; after this
                // barrier nobody reads tile kt's slot again.
                if constexpr (T::kForm != kNoCopiesNoBarrier) {
                    cp_async_wait<kStages - 2>();
                    __syncthreads();
                }
                read_stage = read_stage + 1 == kStages ? 0 : read_stage + 1;
            }
            // The next step's fragments: step s+1 of this tile, or step 0 of the next (past the last
            // tile: harmless reads of a stale slot).
            const std::uint32_t next_base = sbase + read_stage * T::kStageBytes;
            const int next_s = (s + 1) % kSteps, cur = s % 2, nxt = (s + 1) % 2;
#pragma unroll
            for (int mi = 0; mi < MI; ++mi) load_a(nxt, next_base, next_s, mi);
#pragma unroll
            for (int nj = 0; nj < NI / 2; ++nj) load_b(nxt, next_base, next_s, nj);
#pragma unroll
            for (int c = 0; c < T::kCopies; ++c)  // this step's share of the copies
                if (T::kForm == kComplete && s < T::kCopySteps && c >= s * T::kCopies / T::kCopySteps &&
                    c < (s + 1) * T::kCopies / T::kCopySteps)
                    copy_one(copy, c);
#pragma unroll
            for (int mi = 0; mi < MI; ++mi) mma_row(cur, mi);
            if (s == T::kCopySteps - 1) {  // one group per tile, committed before the wait of its last step
                cp_async_commit();
                write_stage = write_stage + 1 == kStages ? 0 : write_stage + 1;
            }
        }
    }

    cp_async_wait<0>();  // only empty groups remain
    __syncthreads();     // every warp is done with its (stale) ldmatrix reads
    store_c<T>(smem, acc, C, N, row0, col0, t, w_m, w_n, [] { __syncthreads(); });
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
    const int tiles = (M / T::BM) * ((N + T::BN - 1) / T::BN);
    gemm_pipelined<T><<<tiles, T::kThreads, T::kSmemBytes, stream>>>(A, B, C, M, N, K);
}

void launch_pipelined(const __nv_bfloat16* A, const __nv_bfloat16* B, __nv_bfloat16* C, int M, int N, int K,
                      cudaStream_t stream) {
    launch_tiles<Shipped>(A, B, C, M, N, K, stream);
}

}  // namespace

