// Lab 06, the bridge rung (solution): lab 03 rung 9's mma.sync loop fed by the TMA unit.
// C[M,N] = A[M,K] Bt[N,K]^T, bf16 in, fp32 accumulate, bf16 out (gemm_abt).
//
// Rung 9 of lab 03 spends its mma warps' own instruction issue on the copies: every warp
// computes addresses and issues cp.async for the next tiles between its ldmatrix and mma, and
// a block barrier each K slice stops all eight mma warps at once. Its reference stops at about
// three quarters of the mma.sync roof; the timing-only form of it without copies got most of
// the rest back. Here the same math (128 x 256 tile, eight warps of 64 x 64, m16n8k16 bf16 with
// fp32 accumulators, fragments double-buffered in registers) is fed the way the wgmma rungs
// are fed:
//
//   warpgroup 0, the producer: gives its registers away (setmaxnreg to 40); one thread loops
//     over the K slices: wait until stage k % 4 is empty, announce its 48 KiB on full[stage],
//     ask the TMA unit for A's [128][64] box and Bt's [256][64] box. Nothing else.
//   warpgroups 1 and 2, eight mma warps: take 232 registers each (128 accumulators, 64
//     fragment registers, addresses); per K slice: wait on full[stage], four k16 steps of
//     4 ldmatrix.x4 for A and 4 ldmatrix.x4 for Bt, then 32 mma.sync; once a warp's last
//     ldmatrix of the slice is issued, lane 0 arrives on empty[stage]. No block barrier.
//
// The ldmatrix addresses under the 128-byte swizzle. A box row is 128 bytes (64 bf16 of K),
// 8 chunks of 16 bytes; the TMA unit writes logical chunk c of row r at chunk c ^ (r % 8)
// (address bits 4-6 XORed with bits 7-9 of a 1 KiB-aligned box). A lane of ldmatrix names one
// 8-element row of one 8 x 8 matrix: a row of the tile and a chunk (a k8 half of a k16 step).
//   A (row-major, "row" operand):   lane -> row warp_row + 16 i + lane % 16, chunk 2 s + lane / 16
//     (matrices: rows 0-7 k 0-7, rows 8-15 k 0-7, rows 0-7 k 8-15, rows 8-15 k 8-15 = a0..a3).
//   Bt (N rows of K, the "col" operand without a transpose): lane -> row warp_col + 16 j +
//     lane % 8 + 8 (lane / 16), chunk 2 s + (lane / 8) % 2 (matrices: n 0-7 k 0-7, n 0-7
//     k 8-15, n 8-15 k 0-7, n 8-15 k 8-15 = b0, b1 of n8 tile 2j, then of 2j + 1).
// Every row offset the warp adds (warp_row, warp_col, 16 i, 16 j) is a multiple of 8, so the
// row's r % 8 is lane % 8 and the swizzle depends on the lane alone; the step s only flips
// chunk bits 1-2 ((2s + x) ^ r = (x ^ r) ^ 2s for x in {0, 1}). So each lane computes one byte
// offset per operand once and XORs 32 s into it per step. Each 8-lane phase of an ldmatrix reads
// 8 rows whose r % 8 differ: 8 different chunks of 16 bytes, all 32 banks, no conflict.
//
// The empty barrier's arrival: the fragments of step 3 are loaded during step 2, so at step 3 a
// warp has issued its last read of the stage. __syncwarp() orders its lanes' reads before lane
// 0's arrive (a release); the producer's wait on it (an acquire) orders them before the next
// TMA write of the stage.
//
// Prediction, 4096^3 on the H200, written before any run of this file: the same design as
// scripts/probes/rung9_ws.cuh (B row-major there, 3 stages), so ~80-84% of the mma.sync roof
// `roofline ceilings` measures (~520-540 TFLOP/s against a ~645 roof), ~0.66-0.70 of cuBLAS.
// The 4th stage should change nothing measurable (one block an SM, a stage already covers the
// ~1 us of latency with ~2 us of mma). At 8192^3, the same fraction of the roof within a point
// or two: more tiles (2048, 15.5 waves) make the last wave's idle SMs cheaper, more L2 misses
// make nothing slower while the ring holds 3 slices in flight.
// Measured: to be measured on the H200 (debrief/mma_sync_tma_4096.md).
#include "roofline/contract/gemm.cuh"
#include "roofline/ptx/mbarrier.cuh"
#include "roofline/ptx/mma_sync.cuh"
#include "roofline/ptx/tma.cuh"
#include "roofline/ptx/wgmma.cuh"

#include <cuda_bf16.h>

#include <cstdint>

#include "given/mma_sync_tma.cuh"

namespace {

namespace mbarrier = roofline::mbarrier;
namespace tma = roofline::tma;
using namespace roofline::gemm::mma;  // smem_addr, ldmatrix_x4, mma_bf16_16816

// Byte offset in a box of the 16-byte chunk `chunk` of row `row`, as the 128-byte swizzle puts it.
__device__ inline std::uint32_t swizzled(int row, int chunk) {
    return std::uint32_t(row * kRowBytes + ((chunk ^ (row % 8)) * 16));
}

__global__ void __launch_bounds__(kThreads, 1) gemm_mma_sync_tma(const __grid_constant__ CUtensorMap a_map,
                                                                 const __grid_constant__ CUtensorMap b_map,
                                                                 __nv_bfloat16* C, int M, int N, int K) {
    extern __shared__ unsigned char shared_raw[];
    SharedStorage& shared = shared_storage(shared_raw);
    const TileOrigin tile = tile_of_block(M, N);
    const int k_slices = K / kBlockK;
    init_barriers(shared);

    if (threadIdx.x < 128) {  // the producer warpgroup; setmaxnreg acts on a whole warpgroup
        roofline::wgmma::release_registers<40>();
        if (threadIdx.x == 0) {
            tma::prefetch_map(&a_map);
            tma::prefetch_map(&b_map);
            for (int k = 0; k < k_slices; ++k) {
                const int stage = k % kStages;
                // The stage's (k / kStages)-th fill waits for its (k / kStages)-th emptying; on the
                // first pass through the ring parity 1 of a fresh barrier counts as complete.
                mbarrier::wait(&shared.empty[stage], ((k / kStages) & 1) ^ 1);
                mbarrier::arrive_expect_tx(&shared.full[stage], kATileBytes + kBTileBytes);
                tma::load_2d(shared.a[stage], &a_map, tile.row, k * kBlockK, &shared.full[stage]);
                tma::load_2d(shared.b[stage], &b_map, tile.col, k * kBlockK, &shared.full[stage]);
            }
        }
        return;
    }

    roofline::wgmma::claim_registers<232>();
    const int mma_thread = threadIdx.x - 128, warp = mma_thread / 32, lane = mma_thread % 32;
    const int warp_row = (warp / (kBlockN / kWarpN)) * kWarpM, warp_col = (warp % (kBlockN / kWarpN)) * kWarpN;
    // This lane's ldmatrix row and chunk at step 0 of m16 tile 0 (A) and n16 pair 0 (Bt); see the header.
    const std::uint32_t a_lane = swizzled(warp_row + lane % 16, lane / 16);
    const std::uint32_t b_lane = swizzled(warp_col + lane % 8 + 8 * (lane / 16), (lane / 8) % 2);
    const std::uint32_t a_base = smem_addr(shared.a[0]), b_base = smem_addr(shared.b[0]);

    std::uint32_t frag_a[2][kTilesM][4], frag_b[2][kTilesN / 2][4];  // one set in the mma, one loading
    auto load_fragments = [&](int set, int stage, int step) {
        const std::uint32_t a_stage = a_base + stage * kATileBytes, b_stage = b_base + stage * kBTileBytes;
        const std::uint32_t step_bits = 32 * step;  // chunk 2s: bits 1-2 of the chunk index
#pragma unroll
        for (int i = 0; i < kTilesM; ++i) ldmatrix_x4(frag_a[set][i], a_stage + 16 * i * kRowBytes + (a_lane ^ step_bits));
#pragma unroll
        for (int j = 0; j < kTilesN / 2; ++j)
            ldmatrix_x4(frag_b[set][j], b_stage + 16 * j * kRowBytes + (b_lane ^ step_bits));
    };

    float acc[kTilesM][kTilesN][4] = {};
    mbarrier::wait(&shared.full[0], 0);
    load_fragments(0, 0, 0);
    for (int k = 0; k < k_slices; ++k) {
        const int stage = k % kStages, next = (k + 1) % kStages;
#pragma unroll
        for (int step = 0; step < kSteps; ++step) {
            if (step == kSteps - 1) {
                // This warp's last ldmatrix of slice k went out at the step before: free the stage,
                // then wait for slice k+1 (none after the last slice).
                __syncwarp();
                if (lane == 0) mbarrier::arrive(&shared.empty[stage]);
                if (k + 1 < k_slices) mbarrier::wait(&shared.full[next], ((k + 1) / kStages) & 1);
            }
            // The next step's fragments while this step's mma run.
            if (step + 1 < kSteps) load_fragments((step + 1) % 2, stage, step + 1);
            else if (k + 1 < k_slices) load_fragments(0, next, 0);
            const int set = step % 2;
#pragma unroll
            for (int i = 0; i < kTilesM; ++i)
#pragma unroll
                for (int j = 0; j < kTilesN; ++j)
                    mma_bf16_16816(acc[i][j], frag_a[set][i], frag_b[set][j / 2][2 * (j % 2)],
                                   frag_b[set][j / 2][2 * (j % 2) + 1]);
        }
    }
    static_assert(kSteps % 2 == 0, "the last step's next set (0) is the next slice's step 0");

    store_tile(shared, acc, C, N, tile, mma_thread, warp_row, warp_col);
}

}  // namespace

// The launch (given).
#include "given/mma_sync_tma_launch.cuh"

ROOFLINE_GEMM_ABT_VARIANT(mma_sync_tma_4096, launch_gemm_mma_sync_tma);
ROOFLINE_GEMM_ABT_VARIANT(mma_sync_tma_8192, launch_gemm_mma_sync_tma);
