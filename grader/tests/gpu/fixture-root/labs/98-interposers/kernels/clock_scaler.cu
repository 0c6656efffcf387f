// Replaces cudaEventElapsedTime: calls the real one (dlsym RTLD_NEXT) and reports 80%
// of it, so the GEMM below would look 25% faster than it is.
#include "roofline/contract/gemm.cuh"

#include <dlfcn.h>

extern "C" cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end) {
    using Real = cudaError_t (*)(float*, cudaEvent_t, cudaEvent_t);
    static auto real = reinterpret_cast<Real>(dlsym(RTLD_NEXT, "cudaEventElapsedTime"));
    cudaError_t status = real(ms, start, end);
    *ms *= 0.8f;
    return status;
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

ROOFLINE_GEMM_VARIANT(clock_scaler, launch);
