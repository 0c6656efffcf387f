// Lab 06, FP8 rung 2 (solution): the same GEMM with DeepSeek-V3's block scales (op
// gemm_fp8_block_scaled): one fp32 scale per row of A per 128-wide K block (1 x 128) and one
// per 128 x 128 block of Bt, C[m][n] = sum_kb scale_a[kb][m] * scale_b[n / 128][kb] * (the K
// block's partial sum).
//
// Against rung 1: the promotion already stops at every K block with the block's partial sum
// in registers, so the scales cost one multiply there: total += fresh * (scale_a * scale_b),
// an FFMA where rung 1 had an FADD. A thread's 64 accumulators lie in two rows (r and r + 8)
// and, the tile being exactly one 128-row block of Bt, one block column: two scales of A and
// one of Bt per K block, loaded BEFORE waiting for the wgmmas so that their latency hides
// behind the tensor cores. The scales of A are stored K-block-major (scale_a[kb * M + m]),
// so the 8 rows a warp needs are one 32-byte sector. The tile's final store applies no scale.
// Expected: within a few percent of rung 1 (target >= 90% of it): two cached loads and 64
// FFMAs per K block, where rung 1 does 64 FADDs.
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
    const int tiles_m = (M + kBlockM - 1) / kBlockM, tiles_n = (N + kBlockN - 1) / kBlockN;
    const int k_blocks = K / kBlockK;
    init_barriers(shared);
    __syncthreads();

    if (threadIdx.x < 128) {  // the producer warpgroup
        roofline::wgmma::release_registers<40>();
        if (threadIdx.x == 0) run_producer(shared, &a_map, &b_map, tiles_m, tiles_n, k_blocks);
        return;
    }

    roofline::wgmma::claim_registers<232>();
    const int consumer = threadIdx.x / 128 - 1;
    const bool warp_leader = threadIdx.x % 32 == 0;
    float fresh[64] = {};
    int iteration = 0;
    for (int tile = blockIdx.x; tile < tiles_m * tiles_n; tile += gridDim.x) {
        int tile_m = 0, tile_n = 0;
        tile_position(tile, tiles_m, tiles_n, tile_m, tile_n);
        const int row = tile_m * kBlockM + fragment_row(consumer);  // and row + 8
        // Rows past the end of A (zeros from the TMA unit) get scale 0 and are never stored.
        const float* row_scales = scale_a + row;
        const bool row_inside = row < M, row8_inside = row + 8 < M;
        const float* column_scales = scale_b + std::size_t(tile_n) * k_blocks;
        float total[64] = {};
        for (int kb = 0; kb < k_blocks; ++kb, ++iteration) {
            const int stage = iteration % kStages;
            roofline::mbarrier::wait(&shared.full[stage], (iteration / kStages) & 1);
            const std::uint64_t a_descriptor = roofline::wgmma::sw128_kmajor_descriptor(
                roofline::tma::smem_address(shared.a[stage] + consumer * 64 * kBlockK));
            const std::uint64_t b_descriptor =
                roofline::wgmma::sw128_kmajor_descriptor(roofline::tma::smem_address(shared.b[stage]));
            roofline::wgmma::fence();
#pragma unroll
            for (int step = 0; step < kBlockK / kMmaK; ++step)
                roofline::wgmma::mma_m64n128k32_e4m3(fresh, a_descriptor + 2 * step, b_descriptor + 2 * step,
                                                     step > 0);
            roofline::wgmma::commit();
            // The K block's scales, while the tensor cores work.
            const float scale_b_block = __ldg(column_scales + kb);
            const float scale_r = row_inside ? __ldg(row_scales + std::size_t(kb) * M) : 0.0f;
            const float scale_r8 = row8_inside ? __ldg(row_scales + std::size_t(kb) * M + 8) : 0.0f;
            roofline::wgmma::wait<0>();
            if (warp_leader) roofline::mbarrier::arrive(&shared.empty[stage]);
            const float scale0 = scale_r * scale_b_block, scale8 = scale_r8 * scale_b_block;
#pragma unroll
            for (int j = 0; j < 16; ++j) {  // d[4j + 0..1]: row; d[4j + 2..3]: row + 8
                total[4 * j] = fmaf(fresh[4 * j], scale0, total[4 * j]);
                total[4 * j + 1] = fmaf(fresh[4 * j + 1], scale0, total[4 * j + 1]);
                total[4 * j + 2] = fmaf(fresh[4 * j + 2], scale8, total[4 * j + 2]);
                total[4 * j + 3] = fmaf(fresh[4 * j + 3], scale8, total[4 * j + 3]);
            }
        }
        store_tile_bf16(total, 1.0f, C, M, N, tile_m, tile_n, consumer);
    }
}

}  // namespace

// The launch (given).
#include "given/fp8_gemm_launch.cuh"

ROOFLINE_GEMM_FP8_BLOCK_SCALED_VARIANT(fp8_gemm_block_scaled_4096, launch_gemm_fp8);
ROOFLINE_GEMM_FP8_BLOCK_SCALED_VARIANT(fp8_gemm_block_scaled_8192, launch_gemm_fp8);
