// Lab 06 part 5 (the TMA-store wgmma GEMM, C = A Bt^T, bf16 in, fp32 accumulate, bf16 out):
// which cut of shared memory between the ring and the epilogue beats cuBLAS by a margin at
// 4096^3 and 8192^3. Every row is the solution file's kernel under its shape rule (groups of 8
// pair rows; the stream-K tail at 8 rounds of pairs or more: 8192^3 yes, 4096^3 no), with
// one Pipeline<K, stages, boxes, stmatrix>:
//   K x stages   64 x 4 (the rung as graded on 2026-12-01), 32 x 8 (the same 192 KiB ring in
//                half-size stages: a consumer holds two stages, the one its wgmmas read and
//                the one it frees a slice late, so the producer gets 144 KiB to run ahead in,
//                not 96), 32 x 6 and 64 x 3 (a 144 KiB ring that leaves 64 KiB for the epilogue);
//   boxes        2: each consumer stages half its 64 x 256 part a round and waits for the TMA
//                unit to read it before the second round; 4: all of it in one round;
//   stmatrix     "sm": the bf16 tile written with stmatrix, 16 instructions a thread; "st": 64
//                four-byte stores (the ncu profile showed them as generic ST.E).
// Until 2026-12-01 the rows were schedules (group height, stream-K); their table is in the
// part's debrief (runs 57, 58): the group height moved it by under a point.
//
// Why the pipeline (ncu, 8192^3, 2026-12-01, --set full): the tensor pipe was busy 94.1% of
// the elapsed cycles; SMs idle 2.1% (start and the last pieces); of the consumer warps'
// samples 96% in the main loop (waiting on the tensor pipe: the wgmma wait and the wgmma
// issue queue) and 3.8% after it: the drain (~1.4%) and the epilogue (~2.4%: the two rounds,
// their barriers and fences, the wait for the TMA unit to read the first round). The full
// barrier's first try_wait failed on 13% of the consumer's slices (the producer late), but the
// wgmmas already queued covered most of it. So the epilogue is the part that can shrink.
// Predicted (before any run), same-run % of cuBLAS at 4096^3 / 8192^3, against the 2026-12-01
// row (run 60's gradings: median 102.4 / 100.4):
//   64x4 2rd sm  +0.3-0.5 / +0.2-0.4 (fewer store instructions, same barriers): the file's
//                PipelineInUse, the safe step (the SW128 ring is the one already verified).
//   32x8 2rd     0 to +1 at both: only if the producer's lateness costs tensor time; the
//                twice as many barrier arrivals and wgmma groups per K may cancel it.
//   32x6 1rd sm  +1-2 / +1-1.5: the epilogue in one round, no wait for the TMA read mid-tile,
//                with the producer's lead as today's (4 half-stages = 2 slices): best row.
//   64x3 1rd sm  -1 to -3: the one-round epilogue, but the producer only one slice ahead.
// If a 32-K row verifies and beats the file's row by a point or more at 8192^3 without losing
// at 4096^3, switch `PipelineInUse` in the solution to it (one line).
//
// Steps: (1) the schedule walked on the host for many pair / cluster / slice counts: every
// (pair, K slice) once, each split pair's two pieces in adjacent clusters in the order the
// fix-up expects, each grouped order a permutation (no GPU needed: `--schedule-only`);
// (2) every candidate checked against cuBLAS's fp32 output (the grader's tolerance) on odd
// shapes, the stream-K edge cases (one slice a pair, a run ending one slice into a pair) and
// the timed shapes, each with the stream-K tail forced (twice: the second launch reuses the
// partial slots) and with whole pairs (the shape rule picks one of the two);
// (3) per size, the candidates and cuBLAS (the grader's peer: the same cublasGemmEx call)
// timed in turns, each launch after a 256 MiB memset that evicts the L2, CUDA events;
// medians, and the median of each round's ratio to cuBLAS. Exit 0 only if all were correct.
// Instructor-side: it reads solutions/.
//
// From the course root, on an sm_90 GPU (scripts/device/sched.sh does this):
//   nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -Igrader/include -Ilabs/06-async \
//       -o /tmp/sched_variants scripts/probes/sched_variants.cu grader/harness/tma.cu -lcublas && /tmp/sched_variants [ROUNDS]
#include "probe_check.cuh"
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

// The solution registers itself with the grader's harness; here it is only called.
#include "roofline/contract/gemm.cuh"
#undef ROOFLINE_GEMM_ABT_VARIANT
#define ROOFLINE_GEMM_ABT_VARIANT(name, launch) static_assert(true, "")
#include "../../solutions/06-async/kernels/05_wgmma_tma_store.cu"

namespace probe {

using bf16 = __nv_bfloat16;
using Launch = void (*)(const bf16* A, const bf16* Bt, bf16* C, int M, int N, int K, cudaStream_t stream);

struct Candidate {
    const char* name;
    Launch launch;                // the shape rule: what the timing runs
    Launch schedules[2];          // each schedule forced, for the checks: stream-K on every shape, and never
    const void* kernel;
};

// A pipeline (ring and epilogue, the solution's Pipeline<K, stages, boxes, stmatrix>), launched
// by the solution's shape rule: G8 with the stream-K tail at 8192^3, G8 whole pairs at 4096^3.
template <class P>
Candidate candidate(const char* name) {
    return {name,
            launch_with_pipeline<P>,
            {launch_with_schedule<ScheduleInUse, P>, launch_with_schedule<ScheduleShortRun, P>},
            (const void*)gemm_wgmma_tma_store<ScheduleInUse, P>};
}

// ---- (1) the schedule on the host --------------------------------------------------------

template <class S>
bool check_walk(int pairs, int clusters, int k_slices) {
    std::vector<int> seen(std::size_t(pairs) * k_slices, 0);
    std::vector<Work> first(clusters, Work{-1, 0, 0}), last(clusters);  // first: of the stream-K run
    int saves = 0;
    for (int c = 0; c < clusters; ++c) {
        WorkWalk<S> walk(c, clusters, pairs, k_slices);
        bool any = false;
        int index = 0;
        for (Work w; walk.next(w); ++index) {
            if (w.pair < 0 || w.pair >= pairs || w.k_begin < 0 || w.k_end > k_slices || w.k_begin >= w.k_end) {
                std::printf("  bad piece pair %d [%d, %d) (P=%d C=%d slices=%d)\n", w.pair, w.k_begin, w.k_end,
                            pairs, clusters, k_slices);
                return false;
            }
            for (int k = w.k_begin; k < w.k_end; ++k) ++seen[std::size_t(w.pair) * k_slices + k];
            // Whole pairs first (as many for every cluster), then the stream-K run, whose first
            // piece alone may save a partial.
            const bool first_of_run = w.pair >= walk.whole_pairs && (index == 0 || last[c].pair < walk.whole_pairs);
            if (saves_partial(w) && !first_of_run) {
                std::printf("  cluster %d saves a partial after its run's first piece (P=%d C=%d)\n", c, pairs, clusters);
                return false;
            }
            if (saves_partial(w) && adds_partial(w, k_slices)) {
                std::printf("  a piece both saves and adds (P=%d C=%d slices=%d)\n", pairs, clusters, k_slices);
                return false;
            }
            saves += saves_partial(w);
            if (first_of_run) first[c] = w;
            last[c] = w;
            any = true;
        }
        if (!any) last[c] = {-1, 0, 0};
    }
    for (std::size_t i = 0; i < seen.size(); ++i)
        if (seen[i] != 1) {
            std::printf("  pair %zu slice %zu run %d times (P=%d C=%d slices=%d)\n", i / k_slices, i % k_slices,
                        seen[i], pairs, clusters, k_slices);
            return false;
        }
    // Every head piece (the last piece of cluster c, ending inside its pair) is completed by
    // the first piece of cluster c + 1, which saves it; and the other way round.
    int adds = 0;
    for (int c = 0; c < clusters; ++c) {
        if (last[c].pair < 0 || !adds_partial(last[c], k_slices)) continue;
        ++adds;
        const Work& next = c + 1 < clusters ? first[c + 1] : Work{-1, 0, 0};
        if (last[c].k_begin != 0 || next.pair != last[c].pair || next.k_begin != last[c].k_end ||
            next.k_end != k_slices) {
            std::printf("  cluster %d's head piece of pair %d has no matching tail piece (P=%d C=%d slices=%d)\n", c,
                        last[c].pair, pairs, clusters, k_slices);
            return false;
        }
    }
    if (adds != saves) {
        std::printf("  %d partials saved, %d added (P=%d C=%d slices=%d)\n", saves, adds, pairs, clusters, k_slices);
        return false;
    }
    return true;
}

template <int G>
bool check_order(int pairs_m, int tiles_n) {
    std::vector<int> seen(std::size_t(pairs_m) * tiles_n, 0);
    for (int p = 0; p < pairs_m * tiles_n; ++p) {
        int pm = -1, tn = -1;
        pair_position<G>(p, pairs_m, tiles_n, pm, tn);
        if (pm < 0 || pm >= pairs_m || tn < 0 || tn >= tiles_n) return false;
        ++seen[std::size_t(pm) * tiles_n + tn];
    }
    return std::all_of(seen.begin(), seen.end(), [](int n) { return n == 1; });
}

bool check_schedules() {
    bool ok = true;
    int cases = 0;
    for (int clusters : {1, 2, 7, 57, 60, 66})
        for (int pairs : {1, 2, 5, 65, 66, 67, 100, 131, 132, 133, 256, 1024, 1025})
            for (int k_slices : {1, 2, 3, 17, 64, 128}) {
                ok = ok && check_walk<Schedule<8, true>>(pairs, std::min(pairs, clusters), k_slices);
                ok = ok && check_walk<Schedule<8, false>>(pairs, std::min(pairs, clusters), k_slices);
                ++cases;
            }
    for (int pairs_m : {1, 3, 8, 16, 32, 33})
        for (int tiles_n : {1, 3, 16, 32}) {
            ok = ok && check_order<1>(pairs_m, tiles_n) && check_order<4>(pairs_m, tiles_n) &&
                 check_order<8>(pairs_m, tiles_n) && check_order<16>(pairs_m, tiles_n);
        }
    std::printf("schedule %s (%d pair / cluster / slice counts walked, both kinds; grouped orders are permutations)\n",
                ok ? "correct" : "INCORRECT", cases);
    return ok;
}

// ---- (2) correctness on the GPU -----------------------------------------------------------

__global__ void fill_uniform(bf16* x, std::size_t n, std::uint32_t seed) {
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x) {
        std::uint32_t h = std::uint32_t(i) * 2654435761u ^ seed;
        h ^= h >> 15, h *= 2246822519u, h ^= h >> 13, h *= 3266489917u, h ^= h >> 16;
        x[i] = __float2bfloat16(float(h) * (2.0f / 4294967296.0f) - 1.0f);
    }
}

// Elements off the fp32 reference by more than the lab's tolerance (atol 1e-2, rtol 8e-3), NaN included.
__global__ void count_wrong(const bf16* c, const float* reference, std::size_t n, unsigned long long* wrong) {
    unsigned long long local = 0;
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x) {
        const float v = __bfloat162float(c[i]), r = reference[i];
        if (!(std::fabs(v - r) <= 1.0e-2f + 8.0e-3f * std::fabs(r))) ++local;
    }
    if (local) atomicAdd(wrong, local);
}

struct Shape {
    int M, N, K;
};

}  // namespace probe

int main(int argc, char** argv) {
    using namespace probe;
    const bool schedule_only = argc > 1 && std::strcmp(argv[1], "--schedule-only") == 0;
    const bool schedule_ok = check_schedules();
    if (schedule_only) return schedule_ok ? 0 : 1;
    const int rounds = argc > 1 ? std::max(5, std::atoi(argv[1])) : 40;

    // Rows: K per stage x stages, then the epilogue: "2rd" two rounds of two boxes per consumer
    // (the 2026-12-01 kernel), "1rd" one round of four; "st" four-byte stores, "sm" stmatrix.
    const Candidate candidates[] = {
        candidate<Pipeline<64, 4, 2, false>>("64x4 2rd st"),  // the kernel graded 2026-12-01 (runs 57-60)
        candidate<Pipeline<64, 4, 2, true>>("64x4 2rd sm"),
        candidate<Pipeline<32, 8, 2, false>>("32x8 2rd st"),
        candidate<Pipeline<32, 8, 2, true>>("32x8 2rd sm"),
        candidate<Pipeline<32, 6, 4, true>>("32x6 1rd sm"),
        candidate<Pipeline<64, 3, 4, true>>("64x3 1rd sm"),
    };
    const int n_cand = int(std::size(candidates));

    cudaDeviceProp prop{};
    CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
    std::printf("lab 06 part 5 pipelines on %s (%d SMs); ScheduleInUse = Schedule<%d, %s>; PipelineInUse = "
                "Pipeline<%d, %d, %d, %s>\n", prop.name, prop.multiProcessorCount, ScheduleInUse::kGroupPairs,
                ScheduleInUse::kStreamKTail ? "true" : "false", PipelineInUse::kBlockK, PipelineInUse::kStages,
                PipelineInUse::kEpilogueBoxes, PipelineInUse::kStoreMatrix ? "true" : "false");

    const std::size_t max_elems = std::size_t(8192) * 8192;
    bf16 *A, *Bt, *C, *Cpeer;
    float* R;
    void* flush;
    unsigned long long* wrong;
    const std::size_t flush_bytes = std::size_t(256) << 20;
    CHECK_CUDA(cudaMalloc(&A, max_elems * sizeof(bf16)));
    CHECK_CUDA(cudaMalloc(&Bt, max_elems * sizeof(bf16)));
    CHECK_CUDA(cudaMalloc(&C, max_elems * sizeof(bf16)));
    CHECK_CUDA(cudaMalloc(&Cpeer, max_elems * sizeof(bf16)));
    CHECK_CUDA(cudaMalloc(&R, max_elems * sizeof(float)));
    CHECK_CUDA(cudaMalloc(&flush, flush_bytes));
    CHECK_CUDA(cudaMalloc(&wrong, sizeof(unsigned long long)));
    fill_uniform<<<1024, 256>>>(A, max_elems, 20261201u);
    fill_uniform<<<1024, 256>>>(Bt, max_elems, 7u);
    CHECK_CUDA(cudaGetLastError());

    cublasHandle_t cublas;
    if (cublasCreate(&cublas) != CUBLAS_STATUS_SUCCESS) {
        std::fprintf(stderr, "cublasCreate failed\n");
        return 2;
    }
    const float one = 1.0f, zero = 0.0f;
    // Row-major C = A Bt^T is column-major C^T = Bt A^T: cuBLAS gets (N, M, K), Bt first, transposed.
    auto peer = [&](const Shape& s, void* out, cudaDataType type) {
        return cublasGemmEx(cublas, CUBLAS_OP_T, CUBLAS_OP_N, s.N, s.M, s.K, &one, Bt, CUDA_R_16BF, s.K, A,
                            CUDA_R_16BF, s.K, &zero, out, type, s.N, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
    };

    for (int c = 0; c < n_cand; ++c) {  // registers, resident clusters (the launch asks the same)
        cudaFuncAttributes attr{};
        CHECK_CUDA(cudaFuncGetAttributes(&attr, candidates[c].kernel));
        std::printf("  %-12s %3d registers, %zu bytes local\n", candidates[c].name, attr.numRegs, attr.localSizeBytes);
    }

    // Odd shapes (fewer pairs than clusters, K slices 1, 2, 3, 17), stream-K edges (67 pairs:
    // one over 66; 80 pairs; 133 pairs on 66 clusters: one over two waves), the timed shapes.
    const Shape shapes[] = {{256, 256, 64},    {256, 512, 320},    {1024, 768, 1088}, {2560, 2048, 64},
                            {2560, 2048, 128}, {2560, 2048, 1088}, {17152, 256, 192}, {256, 34048, 256},
                            {4096, 4096, 4096}, {8192, 8192, 8192}};
    std::vector<bool> correct(n_cand, true);
    for (const auto& s : shapes) {
        const std::size_t n = std::size_t(s.M) * s.N;
        if (peer(s, R, CUDA_R_32F) != CUBLAS_STATUS_SUCCESS) {
            std::fprintf(stderr, "cuBLAS reference failed\n");
            return 2;
        }
        for (int c = 0; c < n_cand; ++c)
            for (int launch = 0; launch < 3; ++launch) {  // stream-K twice (the second reuses the partial slots), whole pairs
                CHECK_CUDA(cudaMemset(C, 0xff, n * sizeof(bf16)));  // NaN
                CHECK_CUDA(cudaMemset(wrong, 0, sizeof(unsigned long long)));
                candidates[c].schedules[launch / 2](A, Bt, C, s.M, s.N, s.K, nullptr);
                CHECK_CUDA(cudaGetLastError());
                count_wrong<<<1024, 256>>>(C, R, n, wrong);
                unsigned long long bad = 0;
                CHECK_CUDA(cudaMemcpy(&bad, wrong, sizeof(bad), cudaMemcpyDeviceToHost));
                if (bad != 0) {
                    std::printf("  %s: %llu of %zu outputs WRONG at M=%d N=%d K=%d (%s)\n", candidates[c].name,
                                bad, n, s.M, s.N, s.K, launch < 2 ? "stream-K" : "whole pairs");
                    correct[c] = false;
                }
            }
    }
    bool all_correct = schedule_ok;
    for (int c = 0; c < n_cand; ++c) {
        std::printf("verify %-12s %s\n", candidates[c].name, correct[c] ? "correct on all shapes" : "INCORRECT");
        all_correct = all_correct && correct[c];
    }

    // (3) Timing, per size: the candidates and cuBLAS (bf16 out, the grader's peer) in turns.
    cudaEvent_t start, stop;
    CHECK_CUDA(cudaEventCreate(&start));
    CHECK_CUDA(cudaEventCreate(&stop));
    const int sizes[] = {4096, 8192};
    std::vector<std::vector<double>> median_us(n_cand + 1, std::vector<double>(2, 0.0));
    std::vector<std::vector<double>> median_ratio(n_cand + 1, std::vector<double>(2, 0.0));
    for (int si = 0; si < 2; ++si) {
        const Shape s{sizes[si], sizes[si], sizes[si]};
        std::vector<std::vector<float>> t(n_cand + 1);
        for (int round = 0; round < rounds + 2; ++round)
            for (int c = 0; c <= n_cand; ++c) {
                if (c < n_cand && !correct[c]) continue;
                CHECK_CUDA(cudaMemsetAsync(flush, round & 0xff, flush_bytes));
                CHECK_CUDA(cudaEventRecord(start));
                if (c < n_cand) candidates[c].launch(A, Bt, C, s.M, s.N, s.K, nullptr);
                else peer(s, Cpeer, CUDA_R_16BF);
                CHECK_CUDA(cudaEventRecord(stop));
                CHECK_CUDA(cudaEventSynchronize(stop));
                float ms = 0;
                CHECK_CUDA(cudaEventElapsedTime(&ms, start, stop));
                if (round >= 2) t[c].push_back(ms * 1000.0f);  // two warm-up rounds
            }
        CHECK_CUDA(cudaGetLastError());
        for (int c = 0; c <= n_cand; ++c) {
            if (t[c].empty()) continue;
            std::vector<float> ratio;  // cuBLAS's time over the candidate's, round by round
            for (std::size_t r = 0; r < t[c].size(); ++r) ratio.push_back(t[n_cand][r] / t[c][r]);
            std::sort(ratio.begin(), ratio.end());
            median_ratio[c][si] = ratio[ratio.size() / 2];
            std::vector<float> sorted = t[c];
            std::sort(sorted.begin(), sorted.end());
            median_us[c][si] = sorted[sorted.size() / 2];
        }
    }
    std::printf("\nmedians of %d rounds, L2 flushed before each launch; us, TFLOP/s, %% of cuBLAS "
                "(median of the rounds' ratios)\n", rounds);
    std::printf("%-12s | %-30s | %-30s\n", "pipeline", "4096^3", "8192^3");
    for (int c = 0; c <= n_cand; ++c) {
        std::printf("%-12s", c < n_cand ? candidates[c].name : "cuBLAS");
        for (int si = 0; si < 2; ++si) {
            if (median_us[c][si] == 0) {
                std::printf(" | %-30s", "-");
                continue;
            }
            const double flop = 2.0 * double(sizes[si]) * sizes[si] * sizes[si];
            std::printf(" | %8.1f us %5.0f TF %6.1f%%", median_us[c][si], flop / (median_us[c][si] * 1e-6) / 1e12,
                        100.0 * median_ratio[c][si]);
        }
        std::printf("\n");
    }
    return all_correct ? 0 : 1;
}
