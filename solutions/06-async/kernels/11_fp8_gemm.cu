// Lab 06, FP8 rung 1 (solution): C[M,N] (bf16) = scale_a * scale_b * A[M,K] Bt[N,K]^T with A
// and Bt in e4m3, fp32 accumulation, per-tensor scales (op gemm_fp8).
//
// Part 3's kernel with e4m3 operands: a producer warpgroup streams 128 x 128-byte tiles of A
// and Bt through a 6-stage ring (given/fp8_gemm.cuh); each of two consumer warpgroups runs,
// per K block, four wgmma m64n128k32 on its 64 rows, and then PROMOTES: it waits for them
// (wait<0>), frees the stage, and adds the wgmma's fresh 64 x 128 partial sums into fp32
// registers of its own with ordinary FADDs. The next K block's first wgmma starts a fresh
// partial (accumulate = false).
//
// Why promote: Hopper's FP8 wgmma adds each k32 step into its accumulator keeping about 14
// significant bits (DeepSeek-V3, sec. 3.3.2; lessons/06-async.md, "FP8"). Left to run over all
// of K, every add truncates up to an ulp of the running sum, which grows with K: K = 16384
// (512 steps) loses ~1% of C, five times the final bf16 rounding.
// Restarted every 128 elements of K, a partial is never larger than one K block's sum, the
// truncation costs < 4 x 2^-13 of it, and the fp32 adds of the promotion keep 24 bits.
//
// The cost: the consumer waits for its wgmmas at the end of every K block (wait<0>, not
// wait<1>), because the next K block's wgmmas overwrite the same registers. The other
// consumer's wgmmas keep the tensor cores busy meanwhile: two warpgroups take turns.
// Per K block a consumer's tensor work is 4 x 64 x 128 x 32 x 2 = 2.1 MFLOP (~256 cycles of
// an SM's tensor cores at the FP8 peak) against 64 FADDs and a barrier: the promotion hides.
// Expected (README, FP8 section): bound by L2 more than by the tensor cores at 128 x 128
// tiles (128 FLOP per byte of L2 traffic; 11 TB/s at cuBLASLt's 8192^3 rate), so ~75-95% of
// cuBLASLt; the debrief has the figure.
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

    const int warpgroup = threadIdx.x / 128;
    if (warpgroup == 0) {
        roofline::wgmma::release_registers<40>();
        if (threadIdx.x == 0) run_producer(shared, &a_map, &b_map, tiles_m, tiles_n, k_blocks);
        return;
    }

    roofline::wgmma::claim_registers<232>();
    const int consumer = warpgroup - 1;
    const bool warp_leader = threadIdx.x % 32 == 0;
    const float scale = scale_a[0] * scale_b[0];
    float fresh[64] = {};  // the wgmma's accumulator: one K block's partial sums
    int iteration = 0;     // K blocks consumed so far, across tiles: the ring's position
    for (int tile = blockIdx.x; tile < tiles_m * tiles_n; tile += gridDim.x) {
        int tile_m = 0, tile_n = 0;
        tile_position(tile, tiles_m, tiles_n, tile_m, tile_n);
        float total[64] = {};  // the promoted sums, fp32 on the CUDA cores
        for (int kb = 0; kb < k_blocks; ++kb, ++iteration) {
            const int stage = iteration % kStages;
            roofline::mbarrier::wait(&shared.full[stage], (iteration / kStages) & 1);
            const std::uint64_t a_descriptor = roofline::wgmma::sw128_kmajor_descriptor(
                roofline::tma::smem_address(shared.a[stage] + consumer * 64 * kBlockK));
            const std::uint64_t b_descriptor =
                roofline::wgmma::sw128_kmajor_descriptor(roofline::tma::smem_address(shared.b[stage]));
            roofline::wgmma::fence();  // our FADDs read `fresh` last; the wgmmas write it now
#pragma unroll
            for (int step = 0; step < kBlockK / kMmaK; ++step) {
                // 32 e4m3 = 32 bytes further along K: 2 in the descriptor's 16-byte units.
                roofline::wgmma::mma_m64n128k32_e4m3(fresh, a_descriptor + 2 * step, b_descriptor + 2 * step,
                                                     step > 0);
            }
            roofline::wgmma::commit();
            roofline::wgmma::wait<0>();  // the partial is complete, and the stage read
            if (warp_leader) roofline::mbarrier::arrive(&shared.empty[stage]);
#pragma unroll
            for (int i = 0; i < 64; ++i) total[i] += fresh[i];  // the promotion
        }
        store_tile_bf16(total, scale, C, M, N, tile_m, tile_n, consumer);
    }
}

}  // namespace

// The launch (given).
#include "given/fp8_gemm_launch.cuh"

ROOFLINE_GEMM_FP8_VARIANT(fp8_gemm_4096, launch_gemm_fp8);
ROOFLINE_GEMM_FP8_VARIANT(fp8_gemm_8192, launch_gemm_fp8);
