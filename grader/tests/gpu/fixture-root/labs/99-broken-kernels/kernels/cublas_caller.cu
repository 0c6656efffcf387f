// Hands the copy to cuBLAS: correct and fast, and not the student's work. Refused
// at link time (forbidden_call), before it runs.
#include "roofline/contract/elementwise.cuh"

#include <cublas_v2.h>

namespace {
void launch(const float* x, float* y, std::size_t n, cudaStream_t stream) {
    static cublasHandle_t handle = [] {
        cublasHandle_t h = nullptr;
        cublasCreate(&h);
        return h;
    }();
    cublasSetStream(handle, stream);
    cublasScopy(handle, static_cast<int>(n), x, 1, y, 1);
}
}  // namespace

ROOFLINE_COPY_VARIANT(cublas_caller, launch);
