// The server's GEMMs: y[n][m] = sum_k x[n][k] * w[m][k] (a weight matrix W [m][k] applied to the
// batch's rows x [n][k]), bf16 in, fp32 accumulation, bf16 or fp32 out.
//
// The dispatcher, as a serving stack's kernel selection does: cuBLASLt's tensor-core GEMM where
// every leading dimension is a multiple of 8 elements (rows that start on 16-byte boundaries, the
// alignment the tensor-core kernels' vector loads are built for); otherwise the portable CUDA-core
// GEMM (kernels.cu), which takes any shape. Both are correct; they are not equally fast.
#pragma once
#include "kernels.cuh"

#include <cublasLt.h>

#include <map>
#include <tuple>

namespace server {

enum class GemmPath { tensor_cores, cuda_cores };

class Gemms {
public:
    Gemms();
    ~Gemms();
    Gemms(const Gemms&) = delete;
    Gemms& operator=(const Gemms&) = delete;

    static GemmPath path_for(int ldw, int ldx, int ldy) {
        return ldw % 8 == 0 && ldx % 8 == 0 && ldy % 8 == 0 ? GemmPath::tensor_cores : GemmPath::cuda_cores;
    }
    // One of y_bf16 / y_f32 non-null. Safe inside a CUDA graph capture (plans are made on the host,
    // the workspace is allocated up front).
    void run(const bf16* w, int ldw, const bf16* x, int ldx, bf16* y_bf16, float* y_f32, int ldy, int m, int n, int k,
             cudaStream_t stream);

private:
    struct Plan {
        cublasLtMatmulDesc_t desc = nullptr;
        cublasLtMatrixLayout_t a = nullptr, b = nullptr, c = nullptr;
        cublasLtMatmulAlgo_t algo{};
    };
    using Key = std::tuple<int, int, int, int, int, int, bool>;
    const Plan& plan(int ldw, int ldx, int ldy, int m, int n, int k, bool f32_out);

    cublasLtHandle_t handle_ = nullptr;
    void* workspace_ = nullptr;
    std::size_t workspace_bytes_ = 32u << 20;
    std::map<Key, Plan> plans_;
};

}  // namespace server
