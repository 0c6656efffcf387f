#include "check.cuh"
#include "gemm.cuh"

namespace server {

Gemms::Gemms() {
    CUBLAS_CHECK(cublasLtCreate(&handle_));
    CUDA_CHECK(cudaMalloc(&workspace_, workspace_bytes_));
}

Gemms::~Gemms() {
    for (auto& [key, p] : plans_) {
        cublasLtMatrixLayoutDestroy(p.a);
        cublasLtMatrixLayoutDestroy(p.b);
        cublasLtMatrixLayoutDestroy(p.c);
        cublasLtMatmulDescDestroy(p.desc);
    }
    cudaFree(workspace_);
    cublasLtDestroy(handle_);
}

const Gemms::Plan& Gemms::plan(int ldw, int ldx, int ldy, int m, int n, int k, bool f32_out) {
    Key key{ldw, ldx, ldy, m, n, k, f32_out};
    auto found = plans_.find(key);
    if (found != plans_.end()) return found->second;
    Plan p;
    // Column-major view: D (m x n, ld ldy) = op(W) x X, W stored k x m (ld ldw) and transposed,
    // X stored k x n (ld ldx).
    CUBLAS_CHECK(cublasLtMatmulDescCreate(&p.desc, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    cublasOperation_t transpose = CUBLAS_OP_T;
    CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(p.desc, CUBLASLT_MATMUL_DESC_TRANSA, &transpose, sizeof(transpose)));
    CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&p.a, CUDA_R_16BF, k, m, ldw));
    CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&p.b, CUDA_R_16BF, k, n, ldx));
    CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&p.c, f32_out ? CUDA_R_32F : CUDA_R_16BF, m, n, ldy));
    cublasLtMatmulPreference_t preference = nullptr;
    CUBLAS_CHECK(cublasLtMatmulPreferenceCreate(&preference));
    CUBLAS_CHECK(cublasLtMatmulPreferenceSetAttribute(preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                                      &workspace_bytes_, sizeof(workspace_bytes_)));
    cublasLtMatmulHeuristicResult_t result{};
    int found_count = 0;
    CUBLAS_CHECK(cublasLtMatmulAlgoGetHeuristic(handle_, p.desc, p.a, p.b, p.c, p.c, preference, 1, &result, &found_count));
    cublasLtMatmulPreferenceDestroy(preference);
    if (found_count == 0) fail_now("cuBLASLt has no algorithm for a bf16 GEMM of m " + std::to_string(m) + ", n " +
                                   std::to_string(n) + ", k " + std::to_string(k));
    p.algo = result.algo;
    return plans_.emplace(key, p).first->second;
}

void Gemms::run(const bf16* w, int ldw, const bf16* x, int ldx, bf16* y_bf16, float* y_f32, int ldy, int m, int n,
                int k, cudaStream_t stream) {
    if (path_for(ldw, ldx, ldy) == GemmPath::cuda_cores) {
        portable_gemm(w, ldw, x, ldx, y_bf16, y_f32, ldy, m, n, k, stream);
        return;
    }
    const Plan& p = plan(ldw, ldx, ldy, m, n, k, y_f32 != nullptr);
    float alpha = 1, beta = 0;
    void* y = y_f32 ? static_cast<void*>(y_f32) : static_cast<void*>(y_bf16);
    CUBLAS_CHECK(cublasLtMatmul(handle_, p.desc, &alpha, w, p.a, x, p.b, &beta, y, p.c, y, p.c, &p.algo, workspace_,
                                workspace_bytes_, stream));
}

}  // namespace server
