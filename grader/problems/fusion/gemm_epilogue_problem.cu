// Inputs, trusted reference and peer for lab 04's GEMM operations:
//   gemm_bias_gelu: Y = gelu(A B + bias)      gemm_bare: Y = A B
// all row-major, bf16 in and out, fp32 accumulation.
//
// Inputs: A uniform in [-1, 1), bias uniform in [-1, 1), B uniform in [-s, s) with s = 6 / sqrt(K).
//   An element of A B then has variance K * (1/3) * (s^2 / 3) = 4 at any K: a standard deviation
//   of 2, so the GELU is checked on its curved part, not only on its linear and zero ends.
// Reference: cuBLAS GemmEx with bf16 in, fp32 compute and an fp32 output, then the epilogue in
//   fp32 with the chain's gelu_tanh. The variant may add one rounding to bf16 (the unfused one
//   adds three: after the GEMM, the bias and the GELU; the tolerance allows for that).
// Peer: cuBLASLt doing the variant's job in one call: bf16 in and out, fp32 compute, with the
//   CUBLASLT_EPILOGUE_GELU_BIAS epilogue (gemm_bias_gelu) or none (gemm_bare). Its output is
//   checked against the same reference with the same tolerance once per process, at the first
//   shape the variant passes, so that the yardstick is known to do the same work.
// Also measured (gemm_bias_gelu only, never scored): the given three kernels of rung 6
//   (labs/04-fusion/given/unfused_bias_gelu.cuh, which rung 6 calls and the student does not edit), timed
//   in the same interleaved run, so that the report
//   shows the fused epilogue's speedup over the unfused chain at the timed shape. Checked
//   against the reference once per process too.
//
// cuBLAS is column-major. Row-major Y = A B is column-major Y^T = B^T A^T, so cuBLAS gets the
// sizes (N, M, K) with B first. Y^T has N rows, and cuBLASLt adds the bias along D's rows
// (one value per row, "bias vector length must match matrix D rows"): bias[n] goes to row n of
// Y^T, i.e. to column n of our Y, as wanted.
#include "roofline/contract/fusion.cuh"

#include "../../harness/registry.hpp"
#include "../gemm/cublas_check.hpp"
#include "ops.hpp"
#include "given/unfused_bias_gelu.cuh"

#include <cublasLt.h>
#include <cublas_v2.h>

#include <climits>
#include <cmath>
#include <stdexcept>
#include <string>

namespace roofline::fusion {

namespace {

using harness::DeviceArray;
using harness::Shape;

constexpr std::size_t kPeerWorkspaceBytes = 32u << 20;  // cuBLASLt's scratch; what its heuristics may use

// In place on the fp32 product: ref = gelu(ref + bias[col]).
__global__ void bias_gelu_reference(float* ref, const __nv_bfloat16* bias, std::size_t count, int n) {
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < count;
         i += std::size_t(gridDim.x) * blockDim.x) {
        ref[i] = gelu_tanh(ref[i] + __bfloat162float(bias[i % n]));
    }
}

class GemmEpilogueProblem final : public harness::Problem {
public:
    explicit GemmEpilogueProblem(GemmBiasGeluLaunch launch) : bias_gelu_launch_(launch) {}
    explicit GemmEpilogueProblem(GemmBareLaunch launch) : bare_launch_(launch) {}

    ~GemmEpilogueProblem() override {  // no throwing from a destructor
        release_peer_plan();
        if (lt_ != nullptr) cublasLtDestroy(lt_);
        if (blas_ != nullptr) cublasDestroy(blas_);
    }
    GemmEpilogueProblem(const GemmEpilogueProblem&) = delete;
    GemmEpilogueProblem& operator=(const GemmEpilogueProblem&) = delete;

    void setup(const Shape& shape) override {
        auto [m, n, k] = harness::shape_sizes(shape, ops::mnk, "GEMM-epilogue shapes (Y[m,n] from A[m,k] B[k,n])");
        if (m * k > INT_MAX || k * n > INT_MAX || m * n > INT_MAX)
            throw std::invalid_argument("shape too large: each matrix must hold fewer than 2^31 elements");
        m_ = int(m), n_ = int(n), k_ = int(k);
        a_ = DeviceArray<__nv_bfloat16>(std::size_t(m) * k);
        b_ = DeviceArray<__nv_bfloat16>(std::size_t(k) * n);
        bias_ = DeviceArray<__nv_bfloat16>(std::size_t(n));
        y_ = DeviceArray<__nv_bfloat16>(std::size_t(m) * n, /*guarded=*/true);
        reference_ = DeviceArray<float>(std::size_t(m) * n);
        if (blas_ == nullptr) CUBLAS_CHECK(cublasCreate(&blas_));
        if (sms_ == 0) {
            int device = 0;
            CUDA_CHECK(cudaGetDevice(&device));
            CUDA_CHECK(cudaDeviceGetAttribute(&sms_, cudaDevAttrMultiProcessorCount, device));
        }
        if (lt_ == nullptr) {
            CUBLAS_CHECK(cublasLtCreate(&lt_));
            workspace_ = DeviceArray<unsigned char>(kPeerWorkspaceBytes);
        }
        plan_peer();
    }

    void fill_inputs(std::uint64_t seed, cudaStream_t stream) override {
        const float s = 6.0f / std::sqrt(float(k_));
        harness::fill_random(a_.data(), a_.size(), seed, -1.0f, 1.0f, stream);
        harness::fill_random(b_.data(), b_.size(), seed ^ 0x9E3779B97F4A7C15ull, -s, s, stream);
        harness::fill_random(bias_.data(), bias_.size(), seed ^ 0xB1A5ull, -1.0f, 1.0f, stream);
    }

    void poison_outputs(cudaStream_t stream) override {
        harness::poison(y_.data(), y_.size(), stream);
        y_.storage().arm_guards(stream);
    }

    void launch_variant(cudaStream_t stream) override {
        if (bias_gelu_launch_) bias_gelu_launch_(a_.data(), b_.data(), bias_.data(), y_.data(), m_, n_, k_, stream);
        else bare_launch_(a_.data(), b_.data(), y_.data(), m_, n_, k_, stream);
    }

    void compute_reference(cudaStream_t stream) override {
        CUBLAS_CHECK(cublasSetStream(blas_, stream));
        const float alpha = 1.0f, beta = 0.0f;
        CUBLAS_CHECK(cublasGemmEx(blas_, CUBLAS_OP_N, CUBLAS_OP_N, n_, m_, k_, &alpha, b_.data(), CUDA_R_16BF, n_,
                                  a_.data(), CUDA_R_16BF, k_, &beta, reference_.data(), CUDA_R_32F, n_,
                                  CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
        if (bias_gelu_launch_) {
            bias_gelu_reference<<<1024, 256, 0, stream>>>(reference_.data(), bias_.data(), reference_.size(), n_);
            CUDA_CHECK(cudaGetLastError());
        }
    }

    harness::VerifyReport verify(const harness::Tolerance& tolerance, cudaStream_t stream) override {
        auto report = harness::compare(y_.data(), reference_.data(), y_.size(), y_.storage(), tolerance, stream);
        if (report.passed && !peer_checked_) {
            launch_peer(stream);
            auto peer = harness::compare(y_.data(), reference_.data(), y_.size(), y_.storage(), tolerance, stream);
            if (!peer.passed) {
                throw std::runtime_error("the peer (" + peer_name() + ") disagrees with the reference at m=" +
                                         std::to_string(m_) + ", n=" + std::to_string(n_) + ", k=" +
                                         std::to_string(k_) + ": " + peer.verdict + "; it cannot be the yardstick");
            }
            peer_checked_ = true;
        }
        if (report.passed && bias_gelu_launch_ && !also_checked_) {
            poison_outputs(stream);  // so that a copy that wrote nothing cannot pass on the variant's answer
            launch_also_measured(stream);
            auto also = harness::compare(y_.data(), reference_.data(), y_.size(), y_.storage(), tolerance, stream);
            if (!also.passed) {
                throw std::runtime_error("the given three kernels (unfused_bias_gelu.cuh, timed beside the variant) "
                                         "disagree with the reference at m=" + std::to_string(m_) + ", n=" +
                                         std::to_string(n_) + ", k=" + std::to_string(k_) + ": " + also.verdict);
            }
            also_checked_ = true;
        }
        return report;
    }

    std::vector<harness::InputView> inputs() const override {
        if (bias_gelu_launch_) return {harness::input_view("A", a_), harness::input_view("B", b_), harness::input_view("bias", bias_)};
        return {harness::input_view("A", a_), harness::input_view("B", b_)};
    }

    std::string peer_name() const override {
        return bias_gelu_launch_ ? "cuBLASLt matmul + GELU_BIAS epilogue (bf16 in/out, fp32 compute)"
                                 : "cuBLASLt matmul, no epilogue (bf16 in/out, fp32 compute)";
    }

    void launch_peer(cudaStream_t stream) override {
        const float alpha = 1.0f, beta = 0.0f;
        CUBLAS_CHECK(cublasLtMatmul(lt_, desc_, &alpha, b_.data(), layout_b_, a_.data(), layout_a_, &beta, y_.data(),
                                    layout_y_, y_.data(), layout_y_, &algo_, workspace_.data(), workspace_.size(),
                                    stream));
    }

    std::string also_measured_name() const override {
        return bias_gelu_launch_ ? "the given three kernels (rung 6's code)" : std::string();
    }

    void launch_also_measured(cudaStream_t stream) override {
        if (bias_gelu_launch_)
            launch_unfused_gemm_bias_gelu(a_.data(), b_.data(), bias_.data(), y_.data(), m_, n_, k_, sms_, stream);
    }

private:
    // cuBLASLt's description of the job at the current shape, and the algorithm its heuristics pick.
    void plan_peer() {
        release_peer_plan();
        CUBLAS_CHECK(cublasLtMatmulDescCreate(&desc_, CUBLAS_COMPUTE_32F, CUDA_R_32F));
        const cublasLtEpilogue_t epilogue = bias_gelu_launch_ ? CUBLASLT_EPILOGUE_GELU_BIAS : CUBLASLT_EPILOGUE_DEFAULT;
        CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(desc_, CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue, sizeof(epilogue)));
        if (bias_gelu_launch_) {
            const void* bias = bias_.data();
            const cudaDataType_t bias_type = CUDA_R_16BF;
            CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(desc_, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof(bias)));
            CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(desc_, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, &bias_type,
                                                        sizeof(bias_type)));
        }
        // Column-major views: B as N x K (ld N), A as K x M (ld K), Y as N x M (ld N).
        CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&layout_b_, CUDA_R_16BF, n_, k_, n_));
        CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&layout_a_, CUDA_R_16BF, k_, m_, k_));
        CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&layout_y_, CUDA_R_16BF, n_, m_, n_));

        cublasLtMatmulPreference_t preference = nullptr;
        CUBLAS_CHECK(cublasLtMatmulPreferenceCreate(&preference));
        const std::size_t workspace_bytes = workspace_.size();
        CUBLAS_CHECK(cublasLtMatmulPreferenceSetAttribute(preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                                          &workspace_bytes, sizeof(workspace_bytes)));
        cublasLtMatmulHeuristicResult_t best{};
        int found = 0;
        auto status = cublasLtMatmulAlgoGetHeuristic(lt_, desc_, layout_b_, layout_a_, layout_y_, layout_y_, preference,
                                                     1, &best, &found);
        cublasLtMatmulPreferenceDestroy(preference);
        gemm::check_cublas(status, "cublasLtMatmulAlgoGetHeuristic");
        if (found == 0) throw std::runtime_error("cuBLASLt has no algorithm for the peer at this shape");
        algo_ = best.algo;
    }

    void release_peer_plan() {
        if (layout_y_ != nullptr) cublasLtMatrixLayoutDestroy(layout_y_);
        if (layout_a_ != nullptr) cublasLtMatrixLayoutDestroy(layout_a_);
        if (layout_b_ != nullptr) cublasLtMatrixLayoutDestroy(layout_b_);
        if (desc_ != nullptr) cublasLtMatmulDescDestroy(desc_);
        layout_y_ = layout_a_ = layout_b_ = nullptr;
        desc_ = nullptr;
    }

    GemmBiasGeluLaunch bias_gelu_launch_ = nullptr;  // exactly one of the two is set
    GemmBareLaunch bare_launch_ = nullptr;
    int m_ = 0, n_ = 0, k_ = 0;
    cublasHandle_t blas_ = nullptr;
    cublasLtHandle_t lt_ = nullptr;
    cublasLtMatmulDesc_t desc_ = nullptr;
    cublasLtMatrixLayout_t layout_a_ = nullptr, layout_b_ = nullptr, layout_y_ = nullptr;
    cublasLtMatmulAlgo_t algo_{};
    bool peer_checked_ = false;
    bool also_checked_ = false;
    int sms_ = 0;  // for the given bias and GELU kernels' grids
    DeviceArray<__nv_bfloat16> a_, b_, bias_, y_;
    DeviceArray<float> reference_;
    DeviceArray<unsigned char> workspace_;
};

}  // namespace

bool register_gemm_bias_gelu(const char* name, GemmBiasGeluLaunch launch, const char* file) {
    return harness::register_variant({name, ops::gemm_bias_gelu, "bf16", file, [launch] {
                                          return std::unique_ptr<harness::Problem>(new GemmEpilogueProblem(launch));
                                      }, harness::invoker_of(launch)});
}

bool register_gemm_bare(const char* name, GemmBareLaunch launch, const char* file) {
    return harness::register_variant({name, ops::gemm_bare, "bf16", file, [launch] {
                                          return std::unique_ptr<harness::Problem>(new GemmEpilogueProblem(launch));
                                      }, harness::invoker_of(launch)});
}

}  // namespace roofline::fusion
