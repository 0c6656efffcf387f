// Lab 03 rung 9 (the mma.sync + cp.async pipelined bf16 GEMM): which form of the kernel comes closest
// to the mma.sync roof at the lab's timed shape, 4096^3. Every candidate is the solution's own
// kernel template (solutions/03-gemm/kernels/09_pipelined.cu, `Tiles<...>`), so a winner is
// shipped by changing the solution's one `using Shipped = Tiles<...>;` line to its row.
//
// Each candidate is first checked against cuBLAS with an fp32 output (the grader's reference)
// on the lab's verify shapes that rung 9 takes and on odd ones (M or N % 256 == 128, K % 64 ==
// 32, a single K tile), with the lab's tolerance. Then all correct candidates and cuBLAS (the
// grader's peer: bf16 GemmEx, fp32 compute, bf16 out) are timed interleaved (A, B, C, ...
// repeated), each launch after a 256 MiB memset that evicts the L2, with CUDA events; the
// table gives medians. The mma.sync roof (grader/ceilings/mma_sync_probe.cuh, the kernel
// `roofline ceilings` times) is timed in the same run, so the "% roof" column needs no other
// file. Exit 0 only if every candidate was correct. Instructor-side: it reads solutions/.
//
// What was measured before (H200, 2026-12-01; results/2026-12-01-h200-runs57-60.md,
// results/2026-12-01-h200-runs62-65.md, results/2026-12-01-h200-runs66-69.md): tile shapes, K steps,
// stage counts and raster groups within 1-2% of each other; C through shared memory +6%; the copies
// of the next K tile without a branch or bound check per chunk, spread over three k16 steps, +1-3%;
// the second warp row running 8-24 mma ahead -12 to -14%; mbarriers instead of the block barrier
// -2 to -3%; a persistent grid +0.3%. The kernel graded after all that (75.6% of the roof, 63.7% of
// cuBLAS) was a frozen row of this probe through run 82 (rung9_before.cuh, in the history at commit
// 2f832d4; removed since, its numbers recorded). Its ncu profile: tensor pipe busy 75%;
// of a warp's stall samples 65% on the mma (math throttle, fixed-latency wait) and 24% on the ~80
// address and copy instructions written as one block before each k16 step's mma, most of them
// waiting on the instruction before; both warps of a scheduler reach that block together.
//
// Then (runs 70-75, results/2026-12-01-h200-runs70-82.md, % of the roof kernel timed in the same
// run): each copy one multiply-add, the tile's sources and edges planned once per tile, +1.5 to
// +2.2% over that kernel in four runs; the ldmatrix and copies threaded between the rows of mma
// -1 to -10%; 128 x 128 tiles two blocks an SM -3%; copies along a row (constant offsets) -0.4%;
// stream-K for the last wave -0.6% against the same work loop without it. The roof kernel with 8
// warps an SM reaches 99.4-100.6% of its 32-warp rate in every run.
//
// The candidates (the solution's Tiles<stages, k16 steps that carry copies, form>; all 128x256 of
// 64x64 warp tiles, K step 64, C through shared memory):
//   copies over 3 steps a copy one multiply-add and the cp.async, 4 copies at each of the first three
//                       k16 steps of a tile.
//   copies at step 0    all 12 at the first step. Shipped.
//   [no copies]         timing only (a wrong C): the K loop without its copies.
//   [no copies, no barrier] also without the wait and the barrier: ldmatrix and mma alone.
//   producer + TMA      the same mma.sync loop, its copies done by the TMA unit for a producer
//                       warpgroup, mbarriers instead of the block barrier (rung9_ws.cuh; not a rung:
//                       lab 06's design), 3 or 4 stages.
// The two bracketed rows split the complete kernel's time: what the copies cost, what the barrier
// costs, and what is left (the 3.88 waves, each block's pipeline fill and epilogue).
//
// Measured (run 74): before 77.6%, over 3 steps 79.0%, at step 0 79.3%, no copies 87.1%, no copies
// and no barrier 87.2%. Predicted for the grading of the shipped row: ~77% of `roofline ceilings`'
// roof (that roof measures 1-4% above this probe's), ~497 TFLOP/s. Graded (run 76): 499.4
// TFLOP/s, 77.6% of the 643.6 roof, 65.1% of cuBLAS; the probe in that run: at step 0 79.9%, no
// copies 88.3% of its 624.0.
// Runs 78-79 had one more row: the same kernel with each stage filled by the TMA unit, issued by
// thread 0 (scripts/probes/rung9_tma.cuh at commit 4382e25; not a rung). Predicted ~+6% over the
// shipped row; measured -10% (442.7 against 491.6 TFLOP/s). ncu: barrier stalls doubled, 4% of
// the samples in the loops the compiler builds around each TMA instruction; warp 0 issues the
// copies on top of its mma and the other warps wait for it at the barrier. Removed after the run.
// Producer warp + TMA, predicted (before run 81) +5% over the shipped row (~84% of the probe's
// roof); measured (run 81) +6.8%: 514.0 against 481.1 TFLOP/s, 83.8% of the roof; 4 stages 512.7.
// ncu: tensor pipe 83.8%, MIO throttle gone, barrier 0.5%.
//
// From the course root, on a machine with an sm_90 GPU:
//   nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -Igrader/include -Xptxas -v \
//       -o /tmp/rung9_variants scripts/probes/rung9_variants.cu grader/harness/tma.cu -lcublas \
//       && /tmp/rung9_variants
// (scripts/device/rung9.sh does this). Optional arguments: timed repetitions (default 60); a row's
// index, which makes one launch of that row at 4096^3 and nothing else (for ncu).
#include "probe_check.cuh"
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

// The solution registers itself with the grader's harness; here it is only called.
#include "roofline/contract/gemm.cuh"
#undef ROOFLINE_GEMM_VARIANT
#define ROOFLINE_GEMM_VARIANT(name, launch) static_assert(true, "")
#include "../../solutions/03-gemm/kernels/09_pipelined.cu"
#include "rung9_ws.cuh"
#include "../../grader/ceilings/mma_sync_probe.cuh"

namespace probe {

using bf16 = __nv_bfloat16;
using Launch = void (*)(const bf16* A, const bf16* B, bf16* C, int M, int N, int K, cudaStream_t stream);

struct Candidate {
    const char* name;
    Launch launch;
    const void* kernel;  // for registers, spills and blocks per SM
    int threads, smem_bytes;
    bool timing_only;  // a diagnostic form that computes a wrong C: timed, never checked
};

template <class T>
Candidate candidate(const char* name) {
    return {name, launch_tiles<T>, (const void*)gemm_pipelined<T>, T::kThreads, T::kSmemBytes, T::kForm != kComplete};
}

// The same loop with a producer warp and the TMA unit doing the copies (rung9_ws.cuh).
template <int kStages>
Candidate candidate_ws(const char* name) {
    using W = rung9_ws::WsTiles<Tiles<kStages, 1>>;
    return {name, rung9_ws::launch<Tiles<kStages, 1>>, (const void*)rung9_ws::gemm_ws<W>, W::kThreads, W::kSmemBytes,
            false};
}

// The rows of the table; Tiles<stages, k16 steps that carry copies, form>.
const Candidate kCandidates[] = {
    candidate<Tiles<3, 3>>("copies over 3 steps"),
    candidate<Tiles<3, 1>>("copies at step 0"),
    candidate<Tiles<3, 1, kNoCopies>>("[no copies]"),
    candidate<Tiles<3, 1, kNoCopiesNoBarrier>>("[no copies, no barrier]"),
    candidate_ws<3>("producer + TMA, 3 stages"),
    candidate_ws<4>("producer + TMA, 4 stages"),
};

__global__ void fill_uniform(bf16* p, std::size_t n, std::uint32_t seed) {
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x) {
        std::uint32_t h = std::uint32_t(i) * 2654435761u ^ seed ^ std::uint32_t(i >> 32) * 40503u;
        h ^= h >> 15, h *= 2246822519u, h ^= h >> 13, h *= 3266489917u, h ^= h >> 16;
        p[i] = __float2bfloat16(float(h) / 4294967296.0f * 2.0f - 1.0f);  // [-1, 1)
    }
}

struct Shape {
    int M, N, K;
};

// Row-major C = A B as cuBLAS's column-major C^T = B^T A^T (the grader's call, gemm_problem.cu).
void cublas_gemm(cublasHandle_t h, const bf16* A, const bf16* B, void* C, cudaDataType c_type, const Shape& s) {
    const float one = 1.0f, zero = 0.0f;
    if (cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, s.N, s.M, s.K, &one, B, CUDA_R_16BF, s.N, A, CUDA_R_16BF, s.K,
                     &zero, C, c_type, s.N, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT) != CUBLAS_STATUS_SUCCESS) {
        std::fprintf(stderr, "cublasGemmEx failed at M=%d N=%d K=%d\n", s.M, s.N, s.K);
        std::exit(2);
    }
}

// The lab's bf16 tolerance (labs/03-gemm/lab.yaml): |c - ref| <= 1e-2 + 8e-3 |ref| per element,
// ||c - ref|| / ||ref|| <= 4e-3; NaN (an element never written: C is poisoned) never passes.
// Returns the number of bad elements (the norm failing counts as one); prints the first.
long long check(const char* name, Launch launch, const Shape& s, const bf16* A, const bf16* B, bf16* C,
                const float* R) {
    const std::size_t mn = std::size_t(s.M) * s.N;
    CHECK_CUDA(cudaMemset(C, 0xff, mn * sizeof(bf16)));
    launch(A, B, C, s.M, s.N, s.K, nullptr);
    if (const cudaError_t e = cudaGetLastError(); e != cudaSuccess) {  // e.g. too much shared memory: not fatal
        std::printf("  %s WRONG at M=%d N=%d K=%d: the launch failed: %s\n", name, s.M, s.N, s.K, cudaGetErrorString(e));
        return (long long)mn;
    }
    CHECK_CUDA(cudaDeviceSynchronize());
    std::vector<bf16> got(mn);
    std::vector<float> ref(mn);
    CHECK_CUDA(cudaMemcpy(got.data(), C, mn * sizeof(bf16), cudaMemcpyDeviceToHost));
    CHECK_CUDA(cudaMemcpy(ref.data(), R, mn * sizeof(float), cudaMemcpyDeviceToHost));
    long long bad = 0;
    double err2 = 0, ref2 = 0;
    for (std::size_t i = 0; i < mn; ++i) {
        const double c = __bfloat162float(got[i]), r = ref[i];
        err2 += (c - r) * (c - r), ref2 += r * r;
        if (!(std::fabs(c - r) <= 1.0e-2 + 8.0e-3 * std::fabs(r))) {
            if (bad == 0)
                std::printf("  %s WRONG at M=%d N=%d K=%d: C[%zu][%zu] = %g, reference %g\n", name, s.M, s.N, s.K,
                            i / s.N, i % s.N, c, r);
            ++bad;
        }
    }
    if (!(std::sqrt(err2) <= 4.0e-3 * std::sqrt(ref2))) {
        std::printf("  %s WRONG at M=%d N=%d K=%d: relative L2 error %.3g > 4e-3\n", name, s.M, s.N, s.K,
                    std::sqrt(err2 / ref2));
        bad += 1;
    }
    return bad;
}

}  // namespace probe

int main(int argc, char** argv) {
    using namespace probe;
    const int reps = argc > 1 ? std::max(5, std::atoi(argv[1])) : 60;
    cudaDeviceProp prop{};
    CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
    const Shape timed{4096, 4096, 4096};
    if (argc > 2) {  // profile mode, for ncu: one launch of candidate argv[2] at the timed shape, nothing else
        const int c = std::atoi(argv[2]);
        if (c < 0 || c >= int(std::size(kCandidates))) return 2;
        bf16 *A, *B, *C;
        const std::size_t n = std::size_t(timed.M) * timed.K;
        CHECK_CUDA(cudaMalloc(&A, n * sizeof(bf16)));
        CHECK_CUDA(cudaMalloc(&B, n * sizeof(bf16)));
        CHECK_CUDA(cudaMalloc(&C, n * sizeof(bf16)));
        fill_uniform<<<1024, 256>>>(A, n, 1u);
        fill_uniform<<<1024, 256>>>(B, n, 2u);
        kCandidates[c].launch(A, B, C, timed.M, timed.N, timed.K, nullptr);
        CHECK_CUDA(cudaDeviceSynchronize());
        std::printf("profiled %s\n", kCandidates[c].name);
        return 0;
    }
    std::printf("rung 9 candidates on %s (%d SMs); C = A B, bf16 in, fp32 accumulate, bf16 out, %dx%dx%d\n",
                prop.name, prop.multiProcessorCount, timed.M, timed.N, timed.K);
    const int n_cand = int(std::size(kCandidates));
    for (const auto& c : kCandidates) {  // registers, spills and resident blocks (the occupancy suspects)
        cudaFuncAttributes attr{};
        int blocks = 0;
        CHECK_CUDA(cudaFuncSetAttribute(c.kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, c.smem_bytes));
        CHECK_CUDA(cudaFuncGetAttributes(&attr, c.kernel));
        CHECK_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, c.kernel, c.threads, c.smem_bytes));
        std::printf("  %-24s %3d threads %3d registers, %4zu bytes local (spills), %6d bytes shared, %d blocks/SM\n",
                    c.name, c.threads, attr.numRegs, attr.localSizeBytes, c.smem_bytes, blocks);
    }

    const std::size_t max_elems = std::size_t(4096) * 4096;
    bf16 *A, *B, *C, *Cpeer;
    float* R;
    void* flush;
    const std::size_t flush_bytes = std::size_t(256) << 20;
    CHECK_CUDA(cudaMalloc(&A, max_elems * sizeof(bf16)));
    CHECK_CUDA(cudaMalloc(&B, max_elems * sizeof(bf16)));
    CHECK_CUDA(cudaMalloc(&C, max_elems * sizeof(bf16)));
    CHECK_CUDA(cudaMalloc(&Cpeer, max_elems * sizeof(bf16)));
    CHECK_CUDA(cudaMalloc(&R, max_elems * sizeof(float)));
    CHECK_CUDA(cudaMalloc(&flush, flush_bytes));
    cublasHandle_t cublas;
    if (cublasCreate(&cublas) != CUBLAS_STATUS_SUCCESS) {
        std::fprintf(stderr, "cublasCreate failed\n");
        return 2;
    }

    // Correctness: the lab's verify shapes rung 9 takes (divisible_by m 128, n 128, k 32), the timed
    // shape, and odd ones: N % 256 == 128 and M % 256 == 128 (half a 256 tile past the edge),
    // K % 64 == 32 (a half-filled last K tile; K % 128 == 96 for the K step of 128), fewer K tiles
    // than stages; more C tiles than SMs, with a half-full last K tile and with a single one.
    const Shape shapes[] = {{128, 256, 64},     {128, 128, 32},   {256, 384, 1056}, {384, 640, 96},
                            {1152, 1408, 2080}, {640, 128, 160},  {512, 256, 224},  {2176, 2432, 96},
                            {2048, 2176, 32},   {4096, 4096, 4096}};
    bool all_correct = true;
    std::vector<bool> correct(n_cand, true);
    std::uint32_t seed = 20261201u;
    for (const auto& s : shapes) {
        fill_uniform<<<1024, 256>>>(A, std::size_t(s.M) * s.K, seed++);
        fill_uniform<<<1024, 256>>>(B, std::size_t(s.K) * s.N, seed++);
        CHECK_CUDA(cudaGetLastError());
        cublas_gemm(cublas, A, B, R, CUDA_R_32F, s);
        for (int c = 0; c < n_cand; ++c) {
            if (kCandidates[c].timing_only) continue;
            const long long bad = check(kCandidates[c].name, kCandidates[c].launch, s, A, B, C, R);
            if (bad != 0) {
                std::printf("  %s: %lld of %lld outputs wrong at M=%d N=%d K=%d\n", kCandidates[c].name, bad,
                            (long long)s.M * s.N, s.M, s.N, s.K);
                correct[c] = false;
                all_correct = false;
            }
        }
    }
    for (int c = 0; c < n_cand; ++c)
        std::printf("verify %-24s %s\n", kCandidates[c].name,
                    kCandidates[c].timing_only ? "timing only (a wrong C by design)"
                    : correct[c]               ? "correct on all shapes"
                                               : "INCORRECT");

    // Timing: every correct candidate and cuBLAS, interleaved, L2 flushed before each launch.
    cudaEvent_t start, stop;
    CHECK_CUDA(cudaEventCreate(&start));
    CHECK_CUDA(cudaEventCreate(&stop));
    auto time_once = [&](auto&& launch) {
        CHECK_CUDA(cudaMemsetAsync(flush, 0x5a, flush_bytes));
        CHECK_CUDA(cudaEventRecord(start));
        launch();
        CHECK_CUDA(cudaEventRecord(stop));
        CHECK_CUDA(cudaEventSynchronize(stop));
        float ms = 0;
        CHECK_CUDA(cudaEventElapsedTime(&ms, start, stop));
        return double(ms) * 1e-3;
    };
    std::vector<std::vector<double>> t(n_cand + 1);
    for (int rep = 0; rep < reps + 2; ++rep)
        for (int c = 0; c <= n_cand; ++c) {
            if (c < n_cand && !correct[c]) continue;
            const double s = time_once([&] {
                if (c < n_cand) kCandidates[c].launch(A, B, C, timed.M, timed.N, timed.K, nullptr);
                else cublas_gemm(cublas, A, B, Cpeer, CUDA_R_16BF, timed);
            });
            if (rep >= 2) t[c].push_back(s);  // two warm-up rounds
        }
    CHECK_CUDA(cudaGetLastError());
    // The mma.sync roof, as `roofline ceilings` measures it (32 warps per SM, registers only): ~1.8 s a
    // launch. Then the same kernel with 8 and 16 warps per SM (one and two blocks): how much of the roof
    // a kernel with rung 9's 8 warps per SM can reach with nothing but independent mma to issue.
    auto median = [](std::vector<double> v) {
        std::sort(v.begin(), v.end());
        return v.empty() ? 0.0 : v[v.size() / 2];
    };
    float* sink = reinterpret_cast<float*>(C);
    auto roof_at = [&](int blocks_per_sm) {
        std::vector<double> roof_t;
        const int blocks = prop.multiProcessorCount * blocks_per_sm;
        for (int rep = 0; rep < 4; ++rep) {
            const double s = time_once([&] { roofline::ceilings::mma_sync_kernel<<<blocks, 256>>>(7u, sink); });
            if (rep >= 1) roof_t.push_back(s);
        }
        CHECK_CUDA(cudaGetLastError());
        return roofline::ceilings::mma_sync_flops(blocks) / median(roof_t) / 1e12;
    };
    const double roof = roof_at(4), roof_8_warps = roof_at(1), roof_16_warps = roof_at(2);
    std::printf("\nthe roof kernel with 8 / 16 / 32 warps per SM: %.1f / %.1f / %.1f TFLOP/s (%.1f%% / %.1f%% of 32)\n",
                roof_8_warps, roof_16_warps, roof, 100.0 * roof_8_warps / roof, 100.0 * roof_16_warps / roof);
    const double flops = 2.0 * timed.M * timed.N * timed.K;
    const double peer_s = median(t[n_cand]);
    std::printf("mma.sync roof (same run): %.1f TFLOP/s; median of %d launches each, L2 flushed before each\n",
                roof, reps);
    std::printf("%-24s | %9s | %8s | %9s | %8s\n", "candidate", "us", "TFLOP/s", "% cuBLAS", "% roof");
    for (int c = 0; c <= n_cand; ++c) {
        const char* name = c < n_cand ? kCandidates[c].name : "cuBLAS";
        if (t[c].empty()) {
            std::printf("%-24s | %9s | %8s | %9s | %8s\n", name, "-", "-", "-", "-");
            continue;
        }
        const double s = median(t[c]), tflops = flops / s / 1e12;
        std::printf("%-24s | %9.1f | %8.1f | %8.1f%% | %7.1f%%\n", name, s * 1e6, tflops, 100.0 * peer_s / s,
                    100.0 * tflops / roof);
    }
    std::printf("\n%s\n", all_correct ? "all candidates correct" : "SOME CANDIDATES INCORRECT (not timed)");
    cublasDestroy(cublas);
    return all_correct ? 0 : 1;
}
