// The design of solutions/07-blackwell/kernels/01_tcgen05_gemm.cu, shared with the lab's open rung
// (kernels/02_open_gemm_abt.cu), which reuses it as our reference; each file registers it under its own name.
#pragma once
// Lab 07, variant tcgen05_gemm: a GEMM on Blackwell's fifth-generation tensor cores (sm_100a).
// C[M,N] = A[M,K] * Bt[N,K]^T (op gemm_abt: both operands K-major), bf16 in, fp32
// accumulation, bf16 out. What changes against a Hopper wgmma kernel (lab 06):
//
//   - ONE thread issues the MMA (tcgen05.mma), not a warpgroup of 128; the other threads
//     are free for other roles while it runs.
//   - The accumulator lives in tensor memory (TMEM, 128 lanes x 512 columns of 32 bits per
//     SM), not in registers: a 128 x 256 fp32 tile takes 256 TMEM columns and no registers
//     until the epilogue reads it out with tcgen05.ld.
//   - Completion is reported by tcgen05.commit, which arrives on an mbarrier when the MMAs
//     issued so far are done: the same barrier kind that TMA copies complete on.
//
// The block (128 threads, one per SM: 193 KiB of shared memory):
//   block tile 128 x 256, K step 64 (one 128-byte swizzle row of bf16);
//   4 stages of [A 128x64 | Bt 256x64] = 48 KiB each, loaded by TMA with SWIZZLE_128B;
//   warp 0 lane 0:  producer. For each K step: wait until the stage is free (empty[s]),
//                   announce 48 KiB on full[s], issue two TMA box copies.
//   warp 1 lane 0:  MMA issuer. Wait for full[s], issue 4 tcgen05.mma 128x256x16 (K = 64),
//                   tcgen05.commit -> empty[s] (the stage is free once they have read it).
//                   After the last K step, tcgen05.commit -> mma_done.
//   warp 0 (all):   allocates 256 TMEM columns at the start, frees them at the end.
//   warps 0-3:      epilogue. Wait for mma_done; warp w reads TMEM lanes 32w..32w+31 (= rows
//                   of the tile), 32 columns at a time, rounds to bf16, stores to C.
//
// Descriptors (PTX ISA, tcgen05 "Instruction descriptor" and "Shared memory descriptor"):
//   see make_instr_desc() and make_smem_desc() below, bit by bit.
//
// Prediction, 8192^3 on a B200 (NOT MEASURED: we have no Blackwell GPU; lessons/07-tensor-cores.md
// works it through). Datasheet floor: 2.2 TFLOP / 2250 TFLOP/s = 489 us. Per SM, one
// 128x256x16 MMA is 1.05 MFLOP; at 2250 / 148 = 15.2 TFLOP/s per SM that is ~69 ns, so a
// tile's 512 MMAs take ~35 us, plus ~2-3 us of epilogue and start-up that nothing overlaps
// (one tile per CTA, one CTA per SM). 2048 tiles on 148 SMs are 13.8 waves, run as 14. That
// gives ~530 us if the tensor cores were always fed. They are not quite: each SM pulls
// 48 KiB per 35/128 us = 180 GB/s from L2, 26 TB/s over 148 SMs, more than we expect the
// L2 to deliver. We predict ~0.75 ms (~1.5 PFLOP/s, ~65% of the datasheet peak): the
// difference is what 2-CTA MMA (cta_group::2) and TMA multicast win back (the lesson).
//
// Shapes: M a multiple of 128, N of 256, K of 64 (lab.yaml: divisible_by); K/64 may be
// fewer than the 4 stages.
#include "roofline/ptx/mbarrier.cuh"
#include "roofline/ptx/tma.cuh"
#include "roofline/contract/gemm.cuh"
#include "roofline/ptx/tcgen05.cuh"

#include <cstdint>

namespace {

using roofline::tma::smem_address;
namespace mbarrier = roofline::mbarrier;
namespace tma = roofline::tma;
namespace tcgen05 = roofline::tcgen05;

constexpr int BM = 128, BN = 256, BK = 64;  // block tile; BK bf16 = 128 bytes = one swizzle row
constexpr int kMmaK = 16;                   // K of one tcgen05.mma.kind::f16
constexpr int kStages = 4;
constexpr int kThreads = 128;               // 4 warps: one per 32-lane quarter of TMEM
constexpr int kTileABytes = BM * BK * 2;    // 16 KiB
constexpr int kTileBBytes = BN * BK * 2;    // 32 KiB
constexpr int kStageBytes = kTileABytes + kTileBBytes;
constexpr int kSmemBytes = kStages * kStageBytes + 1024;  // + slack to align the tiles to 1024
constexpr std::uint32_t kTmemColumns = BN;  // fp32 accumulator: one 32-bit column per column of C
constexpr int kGroupM = 16;                 // block rows per rasterization group (as in lab 03 rung 9)
static_assert(BK * 2 == 128, "one K step is exactly one 128-byte swizzle row");
static_assert(BM == 128 && BN % 16 == 0 && BN <= 256, "tcgen05.mma cta_group::1 kind::f16: M = 128 needs N % 16 == 0, N <= 256");
static_assert(kTileABytes % 1024 == 0 && kStageBytes % 1024 == 0, "every tile starts on a 1024-byte swizzle atom");

// Instruction descriptor, 32 bits (PTX ISA: tcgen05, "Instruction descriptor" table for
// .kind::f16 / .kind::tf32):
//   bits 0-1 sparsity selector, 2 sparse (0: dense), 3 saturate (0)
//   bits 4-5   D type: 1 = F32
//   bit  6     reserved
//   bits 7-9   A type: 1 = BF16 (0 = F16)
//   bits 10-12 B type: 1 = BF16
//   bit  13/14 negate A / B (0)
//   bit  15/16 transpose A / B: 0 = K-major (our layout for both)
//   bits 17-22 N >> 3
//   bit  23    reserved
//   bits 24-28 M >> 4
//   bit  29    reserved; bits 30-31 max shift (.ws only, 0)
__host__ __device__ constexpr std::uint32_t make_instr_desc() {
    return (1u << 4) | (1u << 7) | (1u << 10) | (std::uint32_t(BN >> 3) << 17) | (std::uint32_t(BM >> 4) << 24);
}
static_assert(make_instr_desc() == 0x08400490u);

// Shared-memory matrix descriptor, 64 bits (PTX ISA: tcgen05, "Shared memory descriptor"):
//   bits 0-13  start address >> 4
//   bits 16-29 leading-dimension byte offset >> 4: not used by swizzled K-major layouts (set to 1)
//   bits 32-45 stride-dimension byte offset >> 4: from one 8-row group to the next. A TMA box
//              with SWIZZLE_128B and 128-byte rows packs 8 rows into a 1024-byte atom: 1024.
//   bits 46-48 fixed 0b001 (the tcgen05 descriptor version; Hopper's wgmma descriptor has 0)
//   bits 49-51 base offset: 0, since every tile starts 1024-byte aligned
//   bit  52    leading-dimension mode: 0 (relative)
//   bits 61-63 swizzle: 2 = 128-byte swizzle (0 none, 1 128B with 32B atoms, 4 64B, 6 32B)
// The same descriptor serves A (128 rows) and Bt (256 rows): the row count comes from the
// instruction descriptor's M and N.
__device__ inline std::uint64_t make_smem_desc(std::uint32_t tile_smem) {
    return std::uint64_t((tile_smem & 0x3FFFF) >> 4)  //
           | std::uint64_t(16 >> 4) << 16             //
           | std::uint64_t(1024 >> 4) << 32           //
           | std::uint64_t(1) << 46                   //
           | std::uint64_t(2) << 61;
}

__global__ __launch_bounds__(kThreads, 1) void gemm_tcgen05(const __grid_constant__ CUtensorMap map_a,
                                                            const __grid_constant__ CUtensorMap map_b,
                                                            __nv_bfloat16* C, int M, int N, int K) {
    extern __shared__ __align__(1024) unsigned char smem_raw[];
    __shared__ __align__(8) std::uint64_t full[kStages], empty[kStages], mma_done;
    __shared__ std::uint32_t tmem_base_slot;  // where tcgen05.alloc writes the TMEM address

    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;

    // Grouped rasterization: consecutive CTAs walk down kGroupM block rows, then one block
    // column right, so that a wave shares its panels of A and Bt in L2.
    const int blocks_m = M / BM, blocks_n = N / BN;
    const int per_group = kGroupM * blocks_n;
    const int first_m = (int(blockIdx.x) / per_group) * kGroupM;
    const int group_rows = min(blocks_m - first_m, kGroupM);
    const int in_group = int(blockIdx.x) % per_group;
    const int bm = first_m + in_group % group_rows, bn = in_group / group_rows;

    // The dynamic shared memory is only 16-byte aligned by guarantee; the swizzle atoms need 1024.
    unsigned char* tiles = smem_raw + ((1024 - (smem_address(smem_raw) & 1023)) & 1023);
    auto tile_a = [&](int stage) { return tiles + stage * kStageBytes; };
    auto tile_b = [&](int stage) { return tiles + stage * kStageBytes + kTileABytes; };

    if (threadIdx.x == 0) {
        tma::prefetch_map(&map_a);
        tma::prefetch_map(&map_b);
        for (int s = 0; s < kStages; ++s) {
            mbarrier::init(&full[s], 1);   // the producer's arrive_expect_tx (+ the TMA bytes)
            mbarrier::init(&empty[s], 1);  // one tcgen05.commit
        }
        mbarrier::init(&mma_done, 1);      // one tcgen05.commit
        mbarrier::fence_init();
    }
    if (warp == 0) {  // a whole warp allocates (.sync.aligned)
        tcgen05::alloc(smem_address(&tmem_base_slot), kTmemColumns);
        tcgen05::relinquish_alloc_permit();
    }
    // Publish the barriers and the TMEM address to every thread.
    tcgen05::fence_before_thread_sync();
    __syncthreads();
    tcgen05::fence_after_thread_sync();
    const std::uint32_t tmem_d = tmem_base_slot;  // lane 0, first allocated column

    const int k_steps = K / BK;
    if (warp == 0 && lane == 0) {
        // Producer: stage s holds K steps s, s + S, s + 2S, ... Round r of a stage may start once
        // the MMAs of round r - 1 have committed to empty[s] (its phase r - 1 completed).
        for (int kt = 0; kt < k_steps; ++kt) {
            const int s = kt % kStages, round = kt / kStages;
            if (round > 0) mbarrier::wait(&empty[s], (round - 1) & 1);
            mbarrier::arrive_expect_tx(&full[s], kStageBytes);
            tma::load_2d(tile_a(s), &map_a, bm * BM, kt * BK, &full[s]);
            tma::load_2d(tile_b(s), &map_b, bn * BN, kt * BK, &full[s]);
        }
    } else if (warp == 1 && lane == 0) {
        // MMA issuer: one thread drives the tensor cores for the whole CTA.
        constexpr std::uint32_t idesc = make_instr_desc();
        for (int kt = 0; kt < k_steps; ++kt) {
            const int s = kt % kStages, round = kt / kStages;
            mbarrier::wait(&full[s], round & 1);  // the TMA bytes of this stage have landed
            tcgen05::fence_after_thread_sync();
            const std::uint64_t a_desc = make_smem_desc(smem_address(tile_a(s)));
            const std::uint64_t b_desc = make_smem_desc(smem_address(tile_b(s)));
#pragma unroll
            for (int k = 0; k < BK / kMmaK; ++k) {
                // Step k starts 16 bf16 = 32 bytes further along each 128-byte row: +2 in the
                // start-address field (16-byte units). The swizzle is a function of the address
                // bits, so moving inside the atom needs no other change.
                const std::uint64_t step = std::uint64_t(k * kMmaK * 2) >> 4;
                tcgen05::mma_f16(tmem_d, a_desc + step, b_desc + step, idesc, kt > 0 || k > 0);
            }
            tcgen05::commit(smem_address(&empty[s]));  // stage s is free once these MMAs have read it
        }
        tcgen05::commit(smem_address(&mma_done));      // and the accumulator is final after the last
    }
    __syncwarp();  // lanes 1-31 of warps 0 and 1 wait here for their lane 0, not on the barrier

    // Epilogue: TMEM -> registers -> bf16 -> global. Warp w owns TMEM lanes 32w .. 32w+31,
    // i.e. rows 32w .. 32w+31 of the tile; lane i of the warp gets row 32w + i.
    mbarrier::wait(&mma_done, 0);
    tcgen05::fence_after_thread_sync();
    const int row = bm * BM + warp * 32 + lane;
    __nv_bfloat16* out = C + std::size_t(row) * N + std::size_t(bn) * BN;
    const std::uint32_t tmem_row = tmem_d + (std::uint32_t(warp * 32) << 16);  // lane field: bits 31-16
#pragma unroll 1
    for (int col = 0; col < BN; col += 32) {
        std::uint32_t acc[32];
        tcgen05::ld_32x32b_x32(tmem_row + col, acc);  // columns col .. col+31 of this thread's row
        uint4 packed[4];
        auto* halves = reinterpret_cast<__nv_bfloat162*>(packed);
#pragma unroll
        for (int j = 0; j < 16; ++j) halves[j] = __floats2bfloat162_rn(__uint_as_float(acc[2 * j]), __uint_as_float(acc[2 * j + 1]));
        auto* dst = reinterpret_cast<uint4*>(out + col);  // 64 contiguous bytes of one row
#pragma unroll
        for (int j = 0; j < 4; ++j) dst[j] = packed[j];
    }

    // Every warp's tcgen05.ld is done before warp 0 frees the columns.
    tcgen05::fence_before_thread_sync();
    __syncthreads();
    if (warp == 0) {
        tcgen05::fence_after_thread_sync();
        tcgen05::dealloc(tmem_d, kTmemColumns);
    }
}

}  // namespace

// The launch (given).
#include "given/tcgen05_gemm_launch.cuh"

