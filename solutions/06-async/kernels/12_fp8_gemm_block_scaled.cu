// Lab 06, FP8 rung 2 (solution): the same GEMM with DeepSeek-V3's block scales (op
// gemm_fp8_block_scaled): one fp32 scale per row of A per 128-wide K block (1 x 128) and one
// per 128 x 128 block of Bt, C[m][n] = sum_kb scale_a[kb][m] * scale_b[n / 128][kb] * (the K
// block's partial sum).
//
// Against rung 1: the promotion already stops at every K block with the block's partial sum
// in registers, so the scales cost one multiply there: total += partial * (scale_a * scale_b),
// an FFMA where rung 1 had an FADD. A thread's accumulators of one slab lie in two rows (r
// and r + 8) and, the tile being exactly one 128-row block of Bt, one block column: two
// scales of A per slab and one of Bt per K block. They are loaded when the K block's wgmmas
// are issued and used at its promotion, which (two accumulators taking turns) comes one K
// block later: the loads' latency hides behind a whole K block of tensor work. EVERY use
// waits for the promotion, the product of the two scales too, and no loaded value is
// selected on: a row past M loads row M - 1's scale (a real address) rather than a 0 chosen
// after the load. Either would make the thread wait for its loads before it issues the K
// block's wgmmas (the debrief has what the first design, which did both, lost). The
// scales of A are stored K-block-major (scale_a[kb * M + m]), so the 8 rows a warp needs are one
// 32-byte sector. The tile's final store applies no scale.
// Expected: within a few percent of rung 1 (target >= 90% of it): three cached loads and 64
// FFMAs per K block, where rung 1 does 64 FADDs, none of them on the tensor cores' path.
#include "roofline/contract/gemm.cuh"
#include "roofline/ptx/mbarrier.cuh"
#include "roofline/ptx/tma.cuh"
#include "roofline/ptx/wgmma.cuh"

#include "given/fp8_gemm.cuh"

namespace {

// One K block's scales for this thread: per slab wave, rows r and r + 8 (times Bt's block).
struct BlockScales {
    float row[kWaves][2];
    float column;
};

// Where this thread's scales are: its rows of A and the tile's block row of Bt. A row past M
// (zeros from the TMA unit, never stored) and a tile past N (never stored) read the last
// row's or block's scales instead: real addresses, finite numbers.
struct ScaleSource {
    const float* rows[kWaves];
    bool row_inside[kWaves][2];
    const float* column;  // scale_b + tile_n * k_blocks
};

__device__ inline BlockScales load_scales(const ScaleSource& source, int kb, int M) {
    BlockScales s;
    s.column = __ldg(source.column + kb);
#pragma unroll
    for (int wave = 0; wave < kWaves; ++wave) {
#pragma unroll
        for (int half = 0; half < 2; ++half)
            s.row[wave][half] = __ldg(source.rows[wave] + std::size_t(kb) * M + (source.row_inside[wave][half] ? 8 * half : 0));
    }
    return s;
}

// Slab `slab`'s four wgmmas of the stage's K block into `partial`, committed as one group.
__device__ inline void issue_k_block(float (&partial)[64], const SharedStorage& shared, int stage, int slab) {
    const std::uint64_t a = a_descriptor(shared, stage, slab), b = b_descriptor(shared, stage);
    fence_registers(partial);
    roofline::wgmma::fence();
#pragma unroll
    for (int step = 0; step < kBlockK / kMmaK; ++step)
        roofline::wgmma::mma_m64n128k32_e4m3(partial, a + 2 * step, b + 2 * step, step > 0);
    roofline::wgmma::commit();
}

// The promotion with the block's scales: d[4j + 0..1] lie in row r, d[4j + 2..3] in row r + 8.
__device__ inline void promote_scaled(float (&total)[kTotals], float (&partial)[64], const BlockScales& loaded, int wave) {
    BlockScales s = loaded;  // the scales' product, taken here, a K block after their loads
    s.row[wave][0] *= loaded.column;
    s.row[wave][1] *= loaded.column;
    fence_registers(partial);
#pragma unroll
    for (int j = 0; j < 16; ++j) {
        float* t = total + 64 * wave + 4 * j;
        t[0] = fmaf(partial[4 * j], s.row[wave][0], t[0]);
        t[1] = fmaf(partial[4 * j + 1], s.row[wave][0], t[1]);
        t[2] = fmaf(partial[4 * j + 2], s.row[wave][1], t[2]);
        t[3] = fmaf(partial[4 * j + 3], s.row[wave][1], t[3]);
    }
}

__global__ void __launch_bounds__(kThreads, 1) gemm_fp8(const __grid_constant__ CUtensorMap a_map,
                                                        const __grid_constant__ CUtensorMap b_map,
                                                        const float* scale_a, const float* scale_b,
                                                        __nv_bfloat16* C, int M, int N, int K) {
    SharedStorage& shared = shared_storage();
    const int tiles_m = (M + kBlockM - 1) / kBlockM, tiles_n = (N + kBlockN - 1) / kBlockN;
    const int k_blocks = K / kBlockK;
    start_blocks(shared);

    if (threadIdx.x < 128) {  // the producer warpgroup
        roofline::wgmma::release_registers<40>();
        if (threadIdx.x == 0) run_producer(shared, &a_map, &b_map, M, tiles_m, tiles_n, k_blocks);
        finish_blocks();
        return;
    }

    roofline::wgmma::claim_registers<232>();
    const int consumer = threadIdx.x / 128 - 1;
    float partial0[64] = {}, partial1[64] = {};
    int iteration = 0;
    auto wait_full = [&](int it) {
        roofline::mbarrier::wait(&shared.full[it % kStages], (it / kStages) & 1);
    };
    for (int work = first_work(); work < work_count(tiles_m, tiles_n); work += work_stride()) {
        int tile_m = 0, tile_n = 0;
        tile_position(work, tiles_m, tiles_n, tile_m, tile_n);
        ScaleSource source;
        source.column = scale_b + std::size_t(tile_n < tiles_n ? tile_n : tiles_n - 1) * k_blocks;
#pragma unroll
        for (int wave = 0; wave < kWaves; ++wave) {
            const int row = tile_m * kBlockM + fragment_row(consumer, wave);
            source.rows[wave] = scale_a + row;
            source.row_inside[wave][0] = row < M;
            source.row_inside[wave][1] = row + 8 < M;
            if (row >= M) source.rows[wave] = scale_a + (M - 1);  // row M - 1's scales (see load_scales)
        }
        float total[kTotals] = {};
        if constexpr (kPartials == 1) {
            for (int kb = 0; kb < k_blocks; ++kb, ++iteration) {
                // The K block's scales, before waiting for its bytes and its wgmmas.
                const BlockScales scales = load_scales(source, kb, M);
                wait_full(iteration);
#pragma unroll
                for (int wave = 0; wave < kWaves; ++wave) {
                    issue_k_block(partial0, shared, iteration % kStages, wave * kConsumers + consumer);
                    roofline::wgmma::wait<0>();
                    if (wave == kWaves - 1) release_stage(shared, iteration % kStages);
                    promote_scaled(total, partial0, scales, wave);
                }
            }
        } else {
            // K block kb goes into partial<kb % 2>, its scales into scales<kb % 2>; once it is
            // issued, kb - 1's partial is waited for, released and promoted with the scales
            // loaded a K block ago. Every path into the loop's head has partial0 in flight.
            BlockScales scales0{}, scales1{};
            int kb = 0;
            auto issue_next = [&](float (&into)[64], BlockScales& into_scales) {
                into_scales = load_scales(source, kb, M);
                wait_full(iteration);
                issue_k_block(into, shared, iteration % kStages, consumer);
                ++iteration;
                ++kb;
            };
            auto retire_previous = [&](float (&previous)[64], const BlockScales& previous_scales) {
                roofline::wgmma::wait<1>();
                release_stage(shared, (iteration - 2) % kStages);
                promote_scaled(total, previous, previous_scales, 0);
            };
            issue_next(partial0, scales0);  // K block 0
            while (kb + 1 < k_blocks) {
                issue_next(partial1, scales1);
                retire_previous(partial0, scales0);
                issue_next(partial0, scales0);
                retire_previous(partial1, scales1);
            }
            if (kb < k_blocks) {  // an even number of K blocks: one left
                issue_next(partial1, scales1);
                retire_previous(partial0, scales0);
                roofline::wgmma::wait<0>();
                release_stage(shared, (iteration - 1) % kStages);
                promote_scaled(total, partial1, scales1, 0);
            } else {
                roofline::wgmma::wait<0>();
                release_stage(shared, (iteration - 1) % kStages);
                promote_scaled(total, partial0, scales0, 0);
            }
        }
        store_tile_bf16(total, 1.0f, C, M, N, tile_m, tile_n, consumer);
    }
    finish_blocks();
}

}  // namespace

// The launch (given).
#include "given/fp8_gemm_launch.cuh"

ROOFLINE_GEMM_FP8_BLOCK_SCALED_VARIANT(fp8_gemm_block_scaled_4096, launch_gemm_fp8);
ROOFLINE_GEMM_FP8_BLOCK_SCALED_VARIANT(fp8_gemm_block_scaled_8192, launch_gemm_fp8);
