// Lab 06, FP8 rung 1 (solution): C[M,N] (bf16) = scale_a * scale_b * A[M,K] Bt[N,K]^T with A
// and Bt in e4m3, fp32 accumulation, per-tensor scales (op gemm_fp8).
//
// Part 4's kernel with e4m3 operands: a producer warpgroup streams each K block (128 bytes
// of K) of A and Bt through a TMA ring, A's tile multicast to the two blocks of a cluster
// (given/fp8_gemm.cuh); each of two consumer warpgroups runs, per K block and 64-row slab,
// four wgmma m64n128k32 into a FRESH accumulator (the first does not accumulate) and then
// PROMOTES: it adds those partial sums into fp32 registers of its own with ordinary FADDs.
//
// Why promote: Hopper's FP8 wgmma adds each k32 step into its accumulator keeping about 14
// significant bits (DeepSeek-V3, sec. 3.3.2; lessons/06-async.md, "FP8"). Left to run over all
// of K, every add truncates up to an ulp of the running sum, which grows with K: K = 16384
// (512 steps) loses ~1% of C, five times the final bf16 rounding.
// Restarted every 128 elements of K, a partial is never larger than one K block's sum, the
// truncation costs < 4 x 2^-13 of it, and the fp32 adds of the promotion keep 24 bits.
//
// The cost, and how the design pays it (kPartials = 2): a promotion reads the registers the
// wgmmas wrote, so it must wait for them. With one accumulator (wait<0>) the consumer's next
// wgmmas wait for its promotion, and both consumers, fed by the same stage, wait at the same
// moment. With two accumulators taking turns, K block kb's wgmmas are issued into one
// before the consumer waits (wait<1>) for kb - 1's, in the other, and promotes them: the
// tensor cores always hold a queued K block. 2 x 64 accumulators + 64 sums = 192 registers.
// The stage of kb - 1 is released after its promotion's wait, one K block later than with
// wait<0>: the ring holds one more stage per consumer.
//
// With kPartials = 1 (the tuning sweep's 256-row tile: two slabs a consumer, 64 + 128
// registers) the loop is the plain one: per slab, four wgmmas, wait<0>, promote.
// Expected (README, FP8 section): the rate of the wgmma at n = 128 fed from shared memory,
// with A's L2 traffic halved by the multicast; the debrief has the figure.
#include "roofline/contract/gemm.cuh"
#include "roofline/ptx/mbarrier.cuh"
#include "roofline/ptx/tma.cuh"
#include "roofline/ptx/wgmma.cuh"

#include "given/fp8_gemm.cuh"

namespace {

// Slab `slab`'s four wgmmas of the stage's K block into `partial`, committed as one group.
__device__ inline void issue_k_block(float (&partial)[64], const SharedStorage& shared, int stage, int slab) {
    const std::uint64_t a = a_descriptor(shared, stage, slab), b = b_descriptor(shared, stage);
    fence_registers(partial);
    roofline::wgmma::fence();  // the promotion read `partial` last; the wgmmas write it now
#pragma unroll
    for (int step = 0; step < kBlockK / kMmaK; ++step) {
        // 32 e4m3 = 32 bytes further along K: 2 in the descriptor's 16-byte units.
        roofline::wgmma::mma_m64n128k32_e4m3(partial, a + 2 * step, b + 2 * step, step > 0);
    }
    roofline::wgmma::commit();
}

// The promotion: a K block's partial sums of slab wave `wave` into the fp32 sums.
__device__ inline void promote(float (&total)[kTotals], float (&partial)[64], int wave) {
    fence_registers(partial);  // after the wait for the group that wrote it
#pragma unroll
    for (int i = 0; i < 64; ++i) total[64 * wave + i] += partial[i];
}

__global__ void __launch_bounds__(kThreads, 1) gemm_fp8(const __grid_constant__ CUtensorMap a_map,
                                                        const __grid_constant__ CUtensorMap b_map,
                                                        const float* scale_a, const float* scale_b,
                                                        __nv_bfloat16* C, int M, int N, int K) {
    SharedStorage& shared = shared_storage();
    const int tiles_m = (M + kBlockM - 1) / kBlockM, tiles_n = (N + kBlockN - 1) / kBlockN;
    const int k_blocks = K / kBlockK;
    start_blocks(shared);

    const int warpgroup = threadIdx.x / 128;
    if (warpgroup == 0) {
        roofline::wgmma::release_registers<40>();
        if (threadIdx.x == 0) run_producer(shared, &a_map, &b_map, M, tiles_m, tiles_n, k_blocks);
        finish_blocks();
        return;
    }

    roofline::wgmma::claim_registers<232>();
    const int consumer = warpgroup - 1;
    const float scale = scale_a[0] * scale_b[0];
    float partial0[64] = {}, partial1[64] = {};  // the wgmma's accumulators: one K block's partial sums
    int iteration = 0;  // K blocks consumed so far, across tiles: the ring's position
    auto wait_full = [&](int it) {
        roofline::mbarrier::wait(&shared.full[it % kStages], (it / kStages) & 1);
    };
    for (int work = first_work(); work < work_count(tiles_m, tiles_n); work += work_stride()) {
        int tile_m = 0, tile_n = 0;
        tile_position(work, tiles_m, tiles_n, tile_m, tile_n);
        float total[kTotals] = {};  // the promoted sums, fp32 on the CUDA cores
        if constexpr (kPartials == 1) {
            for (int kb = 0; kb < k_blocks; ++kb, ++iteration) {
                wait_full(iteration);
#pragma unroll
                for (int wave = 0; wave < kWaves; ++wave) {
                    issue_k_block(partial0, shared, iteration % kStages, wave * kConsumers + consumer);
                    roofline::wgmma::wait<0>();  // the partial is complete (and, last wave, the stage read)
                    if (wave == kWaves - 1) release_stage(shared, iteration % kStages);
                    promote(total, partial0, wave);
                }
            }
        } else {
            // K block kb goes into partial<kb % 2>; once it is issued, kb - 1's group (the
            // other accumulator) is waited for, its stage released and its sums promoted
            // while kb's wgmmas run. Written so that every path into the loop's head has the
            // same accumulator in flight (partial0): ptxas keeps the two apart only then.
            auto issue_next = [&](float (&into)[64]) {
                wait_full(iteration);
                issue_k_block(into, shared, iteration % kStages, consumer);
                ++iteration;
            };
            auto retire_previous = [&](float (&previous)[64]) {  // K block iteration - 2
                roofline::wgmma::wait<1>();
                release_stage(shared, (iteration - 2) % kStages);
                promote(total, previous, 0);
            };
            issue_next(partial0);  // K block 0
            int kb = 1;
            for (; kb + 1 < k_blocks; kb += 2) {
                issue_next(partial1);
                retire_previous(partial0);
                issue_next(partial0);
                retire_previous(partial1);
            }
            if (kb < k_blocks) {  // an even number of K blocks: one left
                issue_next(partial1);
                retire_previous(partial0);
                roofline::wgmma::wait<0>();
                release_stage(shared, (iteration - 1) % kStages);
                promote(total, partial1, 0);
            } else {
                roofline::wgmma::wait<0>();
                release_stage(shared, (iteration - 1) % kStages);
                promote(total, partial0, 0);
            }
        }
        store_tile_bf16(total, scale, C, M, N, tile_m, tile_n, consumer);
    }
    finish_blocks();
}

}  // namespace

// The launch (given).
#include "given/fp8_gemm_launch.cuh"

ROOFLINE_GEMM_FP8_VARIANT(fp8_gemm_4096, launch_gemm_fp8);
ROOFLINE_GEMM_FP8_VARIANT(fp8_gemm_8192, launch_gemm_fp8);
