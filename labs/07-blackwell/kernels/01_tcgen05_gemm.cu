// Lab 07, variant tcgen05_gemm: a GEMM on Blackwell's fifth-generation tensor cores (sm_100a).
// C[M,N] = A[M,K] * Bt[N,K]^T (op gemm_abt: both operands K-major), bf16 in, fp32
// accumulation, bf16 out. Read lessons/07-tensor-cores.md first.
//
// What changes against a Hopper wgmma kernel (lab 06): ONE thread issues the MMA
// (tcgen05.mma); the accumulator lives in tensor memory (TMEM), not in registers; and
// tcgen05.commit reports completion on an mbarrier, the same kind of barrier the TMA copies
// complete on.
//
// Given (read it): the tensor maps, the TMA producer, the 4-stage mbarrier ring, the TMEM
// allocation and the commits. The block (128 threads, one CTA per SM):
//   block tile 128 x 256, K step 64 (one 128-byte swizzle row of bf16);
//   4 stages of [A 128x64 | Bt 256x64] = 48 KiB each, written by TMA with SWIZZLE_128B;
//   warp 0 lane 0: producer (TMA);  warp 1 lane 0: MMA issuer;  warp 0: TMEM alloc/dealloc;
//   warps 0-3: epilogue, warp w reading TMEM lanes 32w .. 32w+31 (rows of the tile).
//
// Yours: TODO 1 the instruction descriptor, TODO 2 the shared-memory matrix descriptor,
// TODO 3 the MMA issue, TODO 4 the epilogue (TMEM -> registers -> bf16 -> C). Until you
// write TODO 3 and 4, nothing is written to C and the grader says so.
//
// This file compiles for sm_100a only and runs on a GPU of compute capability 10.0 (B200,
// GB200). Elsewhere `roofline grade` refuses it; `roofline calc --hardware b200` and
// `roofline predict` work anywhere.
//
// Shapes: divisible_by {m: 128, n: 256, k: 64}; K/64 may be fewer than the 4 stages.
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
[[maybe_unused]] constexpr int kMmaK = 16;  // K of one tcgen05.mma.kind::f16
constexpr int kStages = 4;
constexpr int kThreads = 128;
constexpr int kTileABytes = BM * BK * 2;    // 16 KiB
constexpr int kTileBBytes = BN * BK * 2;    // 32 KiB
constexpr int kStageBytes = kTileABytes + kTileBBytes;
constexpr int kSmemBytes = kStages * kStageBytes + 1024;  // + slack to align the tiles to 1024
constexpr std::uint32_t kTmemColumns = BN;  // fp32 accumulator: one 32-bit column per column of C
constexpr int kGroupM = 16;                 // block rows per rasterization group

// TODO 1: the instruction descriptor (32 bits) for bf16 x bf16 -> fp32, M = BM, N = BN, both
//   operands K-major, dense, no negation. Find the table "Instruction descriptor" for
//   .kind::f16 in the PTX ISA's tcgen05 chapter: which bits hold the D type, the A and B
//   types, the two "transpose" (major-ness) bits, N and M, and by how much N and M are
//   shifted right. Check your value with a static_assert against the one you work out by hand.
[[maybe_unused]] __host__ __device__ constexpr std::uint32_t make_instr_desc() { return 0; }

// TODO 2: the shared-memory matrix descriptor (64 bits) of a tile written by TMA with
//   SWIZZLE_128B: rows of 128 bytes, 8 rows per 1024-byte swizzle atom, the tile 1024-byte
//   aligned. PTX ISA, tcgen05 "Shared memory descriptor": the start address (>> 4), the
//   leading- and stride-dimension byte offsets (>> 4; which one matters for a swizzled
//   K-major layout, and what is it here?), the fixed "version" bits that tcgen05 needs and
//   Hopper's wgmma descriptor does not have, the base offset, the swizzle mode.
[[maybe_unused]] __device__ inline std::uint64_t make_smem_desc(std::uint32_t tile_smem) {
    (void)tile_smem;
    return 0;
}

__global__ __launch_bounds__(kThreads, 1) void gemm_tcgen05(const __grid_constant__ CUtensorMap map_a,
                                                            const __grid_constant__ CUtensorMap map_b,
                                                            __nv_bfloat16* C, int M, int N, int K) {
    extern __shared__ __align__(1024) unsigned char smem_raw[];
    __shared__ __align__(8) std::uint64_t full[kStages], empty[kStages], mma_done;
    __shared__ std::uint32_t tmem_base_slot;  // where tcgen05.alloc writes the TMEM address

    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;

    // Grouped rasterization: consecutive CTAs walk down kGroupM block rows, then one column right.
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
    if (warp == 0) {  // a whole warp allocates (.sync.aligned); the address lands in tmem_base_slot
        tcgen05::alloc(smem_address(&tmem_base_slot), kTmemColumns);
        tcgen05::relinquish_alloc_permit();
    }
    tcgen05::fence_before_thread_sync();
    __syncthreads();
    tcgen05::fence_after_thread_sync();
    [[maybe_unused]] const std::uint32_t tmem_d = tmem_base_slot;  // lane 0, first allocated column

    const int k_steps = K / BK;
    if (warp == 0 && lane == 0) {
        // Producer: round r of stage s may start once the MMAs of round r - 1 committed to empty[s].
        for (int kt = 0; kt < k_steps; ++kt) {
            const int s = kt % kStages, round = kt / kStages;
            if (round > 0) mbarrier::wait(&empty[s], (round - 1) & 1);
            mbarrier::arrive_expect_tx(&full[s], kStageBytes);
            tma::load_2d(tile_a(s), &map_a, bm * BM, kt * BK, &full[s]);
            tma::load_2d(tile_b(s), &map_b, bn * BN, kt * BK, &full[s]);
        }
    } else if (warp == 1 && lane == 0) {
        // MMA issuer: one thread drives the tensor cores for the whole CTA.
        for (int kt = 0; kt < k_steps; ++kt) {
            const int s = kt % kStages, round = kt / kStages;
            mbarrier::wait(&full[s], round & 1);  // the TMA bytes of this stage have landed
            tcgen05::fence_after_thread_sync();
            // TODO 3: the MMAs of this K step. The stage holds BK of K for A and for Bt; one
            //   tcgen05.mma (tcgen05::mma_f16) takes kMmaK of it, from two shared-memory
            //   descriptors (TODO 2) and the instruction descriptor (TODO 1), into the
            //   accumulator at tmem_d. From one MMA of the step to the next, the operands start
            //   kMmaK bf16 further along each 128-byte row of both tiles: which field of the
            //   descriptors changes, by how much in its units, and why does the swizzle still
            //   find the right bytes (lesson 07, section 4)? TMEM holds garbage until an MMA
            //   writes it: which MMA of the whole kernel must overwrite rather than add?
            tcgen05::commit(smem_address(&empty[s]));  // stage s is free once these MMAs have read it
        }
        tcgen05::commit(smem_address(&mma_done));      // and the accumulator is final after the last
    }
    __syncwarp();  // lanes 1-31 of warps 0 and 1 wait here for their lane 0

    mbarrier::wait(&mma_done, 0);
    tcgen05::fence_after_thread_sync();
    // TODO 4: the epilogue: the tile's 128 x 256 fp32 accumulators, rounded to bf16, into C.
    //   Facts the PTX ISA fixes ("Tensor Memory", "tcgen05.ld"; roofline/ptx/tcgen05.cuh
    //   restates them): warp w may read TMEM lanes 32w .. 32w+31 only, and the M = 128
    //   accumulator puts row i of the tile in TMEM lane i, column j of the tile in column j
    //   (offset from tmem_d); a TMEM address holds the lane in bits 31-16 and the column in
    //   bits 15-0. tcgen05.ld is .sync.aligned: the whole warp issues it together, for the
    //   same columns, each lane receiving its own TMEM lane (ld_32x32b_x32: 32 columns a call).
    //   So each lane of warp w ends up holding pieces of one row of C: what stores does that
    //   make cheap, given a row of C is contiguous? (And how many of the 256 accumulators
    //   can a lane hold in registers at once?)

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

ROOFLINE_GEMM_ABT_VARIANT(tcgen05_gemm, launch_tcgen05);
