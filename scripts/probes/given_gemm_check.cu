// Checks lab 04's given GEMM (labs/04-fusion/given/gemm_with_epilogue.cuh)
// against a plain fp32 reference and times it beside the main loop it replaced
// (lab 03's rung 9, taken from solutions/) and cuBLAS, at three shapes. One
// line per shape; exit 0 only if every check passed. Instructor-side: it reads
// solutions/, so the student edition leaves it out.
//
// What is checked, per shape:
//   - the epilogue sees every even (row, col) exactly once (a counting epilogue);
//   - the fp32 values it is handed match the reference (|d| <= 1e-3 (1 + |ref|):
//     only the summation order differs);
//   - with StoreBf16, rung 9 and cuBLAS the bf16 outputs match it (1e-2 (1 + |ref|)).
// Times: median of 30 launches each, interleaved (new, rung 9, cuBLAS), each after a
// 256 MiB memset that evicts the L2, measured with CUDA events.
//
// From the course root, on a machine with an sm_90 GPU:
//   nvcc -O3 -std=c++17 -arch=sm_90 -Igrader/include -Ilabs/04-fusion -o /tmp/given_gemm_check \
//       scripts/probes/given_gemm_check.cu -lcublas && /tmp/given_gemm_check
#include "probe_check.cuh"
#include "given/gemm_with_epilogue.cuh"
#include "roofline/contract/gemm.cuh"

#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

// Rung 9 registers itself with the grader's harness; here it is only called.
#undef ROOFLINE_GEMM_VARIANT
#define ROOFLINE_GEMM_VARIANT(name, launch) static_assert(true, "")
#include "../../solutions/03-gemm/kernels/09_pipelined.cu"

namespace probe {

// The epilogue under test writes fp32 and counts how often each pair is handed over.
struct CountingStore {
    float* Y;
    int* visits;  // one per pair
    int N;
    __device__ void operator()(int row, int col, float v0, float v1) const {
        const std::size_t at = std::size_t(row) * N + col;
        Y[at] = v0;
        Y[at + 1] = v1;
        atomicAdd(visits + at / 2, 1);
    }
};

// C = A B in fp32, one thread per output: slow and obviously right.
__global__ void reference_gemm(const __nv_bfloat16* A, const __nv_bfloat16* B, float* C, int M, int N, int K) {
    const int col = blockIdx.x * blockDim.x + threadIdx.x, row = blockIdx.y;
    if (col >= N || row >= M) return;
    float sum = 0.0f;
    for (int k = 0; k < K; ++k) sum += __bfloat162float(A[std::size_t(row) * K + k]) * __bfloat162float(B[std::size_t(k) * N + col]);
    C[std::size_t(row) * N + col] = sum;
}

struct Shape {
    int M, N, K;
};

// Largest |got - ref| / (1 + |ref|) over the output.
double worst_error(const std::vector<float>& got, const std::vector<float>& ref) {
    double worst = 0.0;
    for (std::size_t i = 0; i < ref.size(); ++i)
        worst = std::max(worst, std::fabs(double(got[i]) - ref[i]) / (1.0 + std::fabs(ref[i])));
    return std::isnan(worst) ? 1e30 : worst;
}

std::vector<float> to_floats(const __nv_bfloat16* device, std::size_t n) {
    std::vector<__nv_bfloat16> host(n);
    CHECK_CUDA(cudaMemcpy(host.data(), device, n * sizeof(__nv_bfloat16), cudaMemcpyDeviceToHost));
    std::vector<float> out(n);
    for (std::size_t i = 0; i < n; ++i) out[i] = __bfloat162float(host[i]);
    return out;
}

bool run_shape(const Shape& s, cublasHandle_t cublas, void* flush, std::size_t flush_bytes) {
    const std::size_t mk = std::size_t(s.M) * s.K, kn = std::size_t(s.K) * s.N, mn = std::size_t(s.M) * s.N;
    std::vector<__nv_bfloat16> hA(mk), hB(kn);
    std::mt19937 rng(20261129u + s.M + s.N + s.K);
    std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
    for (auto& v : hA) v = __float2bfloat16(uniform(rng));
    for (auto& v : hB) v = __float2bfloat16(uniform(rng));

    __nv_bfloat16 *A, *B, *Y16;
    float *Y32, *R;
    int* visits;
    CHECK_CUDA(cudaMalloc(&A, mk * 2));
    CHECK_CUDA(cudaMalloc(&B, kn * 2));
    CHECK_CUDA(cudaMalloc(&Y16, mn * 2));
    CHECK_CUDA(cudaMalloc(&Y32, mn * 4));
    CHECK_CUDA(cudaMalloc(&R, mn * 4));
    CHECK_CUDA(cudaMalloc(&visits, mn / 2 * sizeof(int)));
    CHECK_CUDA(cudaMemcpy(A, hA.data(), mk * 2, cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemcpy(B, hB.data(), kn * 2, cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemset(Y32, 0xff, mn * 4));  // NaN: a pair never handed over shows
    CHECK_CUDA(cudaMemset(visits, 0, mn / 2 * sizeof(int)));

    reference_gemm<<<dim3((s.N + 255) / 256, s.M), 256>>>(A, B, R, s.M, s.N, s.K);
    roofline::fusion::launch_gemm_with_epilogue(A, B, s.M, s.N, s.K, CountingStore{Y32, visits, s.N}, nullptr);
    CHECK_CUDA(cudaGetLastError());
    CHECK_CUDA(cudaDeviceSynchronize());
    std::vector<float> ref(mn), got(mn);
    std::vector<int> seen(mn / 2);
    CHECK_CUDA(cudaMemcpy(ref.data(), R, mn * 4, cudaMemcpyDeviceToHost));
    CHECK_CUDA(cudaMemcpy(got.data(), Y32, mn * 4, cudaMemcpyDeviceToHost));
    CHECK_CUDA(cudaMemcpy(seen.data(), visits, mn / 2 * sizeof(int), cudaMemcpyDeviceToHost));
    const auto wrong_visits = std::count_if(seen.begin(), seen.end(), [](int v) { return v != 1; });
    const double err32 = worst_error(got, ref);

    // The three bf16 GEMMs: the new given main loop with the plain store, rung 9, cuBLAS.
    const float one = 1.0f, zero = 0.0f;
    auto launch = [&](int which) {
        if (which == 0)
            roofline::fusion::launch_gemm_with_epilogue(A, B, s.M, s.N, s.K, roofline::fusion::StoreBf16{Y16, s.N}, nullptr);
        else if (which == 1)
            launch_pipelined(A, B, Y16, s.M, s.N, s.K, nullptr);
        else  // row-major C = A B is column-major C^T = B^T A^T
            cublasGemmEx(cublas, CUBLAS_OP_N, CUBLAS_OP_N, s.N, s.M, s.K, &one, B, CUDA_R_16BF, s.N, A, CUDA_R_16BF,
                         s.K, &zero, Y16, CUDA_R_16BF, s.N, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
    };
    double err16[3];
    for (int which = 0; which < 3; ++which) {
        CHECK_CUDA(cudaMemset(Y16, 0xff, mn * 2));
        launch(which);
        CHECK_CUDA(cudaGetLastError());
        CHECK_CUDA(cudaDeviceSynchronize());
        err16[which] = worst_error(to_floats(Y16, mn), ref);
    }

    constexpr int kRepeats = 30;
    std::vector<float> times[3];
    cudaEvent_t start, stop;
    CHECK_CUDA(cudaEventCreate(&start));
    CHECK_CUDA(cudaEventCreate(&stop));
    for (int rep = 0; rep < kRepeats + 2; ++rep)  // the first two rounds warm up
        for (int which = 0; which < 3; ++which) {
            CHECK_CUDA(cudaMemsetAsync(flush, rep, flush_bytes));
            CHECK_CUDA(cudaEventRecord(start));
            launch(which);
            CHECK_CUDA(cudaEventRecord(stop));
            CHECK_CUDA(cudaEventSynchronize(stop));
            float ms = 0.0f;
            CHECK_CUDA(cudaEventElapsedTime(&ms, start, stop));
            if (rep >= 2) times[which].push_back(ms * 1000.0f);
        }
    double median_us[3];
    for (int which = 0; which < 3; ++which) {
        std::sort(times[which].begin(), times[which].end());
        median_us[which] = times[which][kRepeats / 2];
    }

    const bool ok = wrong_visits == 0 && err32 <= 1e-3 && err16[0] <= 1e-2 && err16[1] <= 1e-2 && err16[2] <= 1e-2;
    const double flop = 2.0 * s.M * s.N * double(s.K);
    std::printf("%s M=%d N=%d K=%d | new: visits %s, err fp32 %.1e bf16 %.1e, %.1f us %.0f TFLOP/s | rung 9: err %.1e, "
                "%.1f us | cuBLAS: err %.1e, %.1f us | new/rung 9 %.3fx time, new/cuBLAS %.1f%% rate\n",
                ok ? "PASS" : "FAIL", s.M, s.N, s.K, wrong_visits == 0 ? "ok" : "WRONG", err32, err16[0], median_us[0],
                flop / median_us[0] * 1e-6, err16[1], median_us[1], err16[2], median_us[2], median_us[0] / median_us[1],
                100.0 * median_us[2] / median_us[0]);
    if (wrong_visits != 0) std::printf("  %ld pairs were not handed to the epilogue exactly once\n", long(wrong_visits));

    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    for (void* p : {(void*)A, (void*)B, (void*)Y16, (void*)Y32, (void*)R, (void*)visits}) cudaFree(p);
    return ok;
}

}  // namespace probe

int main() {
    // One block with its upper 128 columns past N and half of one K tile; 17 block rows and 10
    // block columns (a full band of 8 and a band of 2), N % 256 == 128, K % 64 == 32; the same with
    // K <= 1024 (the header's short-K tiling: 19 block columns of 128, a band of 16 and one of 3);
    // the lab's shape.
    const probe::Shape shapes[] = {{128, 128, 32}, {2176, 2432, 1056}, {2176, 2432, 544}, {4096, 4096, 4096}};
    cublasHandle_t cublas;
    if (cublasCreate(&cublas) != CUBLAS_STATUS_SUCCESS) {
        std::fprintf(stderr, "cublasCreate failed\n");
        return 2;
    }
    const std::size_t flush_bytes = std::size_t(256) << 20;
    void* flush = nullptr;
    CHECK_CUDA(cudaMalloc(&flush, flush_bytes));
    bool all_ok = true;
    for (const auto& s : shapes) all_ok = probe::run_shape(s, cublas, flush, flush_bytes) && all_ok;
    cudaFree(flush);
    cublasDestroy(cublas);
    std::printf("%s\n", all_ok ? "all shapes passed" : "SOME SHAPES FAILED");
    return all_ok ? 0 : 1;
}
