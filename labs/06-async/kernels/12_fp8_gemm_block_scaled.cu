// Lab 06, FP8 rung 2: the FP8 GEMM with DeepSeek-V3's block scales (op gemm_fp8_block_scaled;
// contract in roofline/gemm.cuh). One fp32 scale per row of A per 128-wide K block (1 x 128,
// the activations' scales: scale_a[kb * M + m]) and one per 128 x 128 block of Bt (the
// weights': scale_b[(n / 128) * (K / 128) + kb]):
//     C[m][n] = sum over K blocks kb of scale_a[kb][m] * scale_b[n / 128][kb] * P_kb[m][n],
// where P_kb is the K block's partial sum of e4m3 products. Finer scales than one per tensor
// let an outlier spoil only its own 128 values' range, which is what lets FP8 train.
//
// The scales cannot be applied once at the end, since they change from one K block to the
// next; but rung 1 already holds each K block's partial sum on its own, at the promotion.
// That is where DeepSeek-V3 applies them, and so do you: the promotion becomes
// total += P_kb * (scale_a * scale_b), one FFMA per accumulator where rung 1 had an FADD.
//
// Given: as rung 1 (given/fp8_gemm.cuh), the same launch. Write gemm_fp8: your rung 1, with
//   - for each tile, the thread's two rows (fragment_row(consumer, 0): row r of the tile's
//     rows, and r + 8) and its block column of Bt's scales (the tile is exactly 128 columns:
//     tile_n is the block column; a pair's tile past N, tile_n == tiles_n, has none);
//   - per K block, when its wgmmas are issued: LOAD the K block's scale of Bt and the scales of
//     the thread's two rows, and keep them beside the K block's accumulator until its promotion
//     one K block later, so that the loads' latency hides behind a whole K block of tensor work.
//     Use them nowhere before that: not even their product, and no choice made on a loaded
//     value (a row past M, or a tile past N, reads the last row's or block's scales instead of
//     a 0 selected after the load: its products are never stored). Any use at the load makes
//     the thread wait there for the load, before it can issue the K block's wgmmas;
//   - the promotion: each accumulator of row r times scale_a(r) * scale_b, added into the fp32
//     sums (fmaf); d[4j + 0..1] are row r, d[4j + 2..3] row r + 8;
//   - the store with scale 1 (the scales are in already).
// Target: at least 90% of rung 1's rate. Predict first: what does the promotion cost now, per
// K block, against the ~256 tensor-core cycles of the block's wgmmas?
#include "roofline/contract/gemm.cuh"
#include "roofline/ptx/mbarrier.cuh"
#include "roofline/ptx/tma.cuh"
#include "roofline/ptx/wgmma.cuh"

#include "given/fp8_gemm.cuh"

namespace {

__global__ void __launch_bounds__(kThreads, 1) gemm_fp8(const __grid_constant__ CUtensorMap a_map,
                                                        const __grid_constant__ CUtensorMap b_map,
                                                        const float* scale_a, const float* scale_b,
                                                        __nv_bfloat16* C, int M, int N, int K) {
    SharedStorage& shared = shared_storage();
    start_blocks(shared);
    // TODO: rung 1's producer and consumers, with the block scales applied at each promotion
    // (see the top of the file).
    (void)a_map, (void)b_map, (void)scale_a, (void)scale_b, (void)C, (void)M, (void)N, (void)K;
}

}  // namespace

// The launch (given).
#include "given/fp8_gemm_launch.cuh"

ROOFLINE_GEMM_FP8_BLOCK_SCALED_VARIANT(fp8_gemm_block_scaled_4096, launch_gemm_fp8);
ROOFLINE_GEMM_FP8_BLOCK_SCALED_VARIANT(fp8_gemm_block_scaled_8192, launch_gemm_fp8);
