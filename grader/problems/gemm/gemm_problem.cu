// Inputs, trusted reference and peer for the GEMM problem of labs 03, 04, 06 and 07.
// C[M,N] = A[M,K] * B[K,N], all row-major, A and B uniform in [-1, 1).
// Reference: cuBLAS. fp32 variants: cublasSgemm in the default math mode (no TF32).
//   bf16 variants: cublasGemmEx with bf16 inputs, fp32 compute and an fp32 output, so the
//   only rounding the variant may add on top is its own final rounding to bf16.
// Peer: cuBLAS doing exactly the variant's job (same input and output types), timed in the
//   same run, interleaved with the variant.
//
// Op gemm_abt (bf16 only): C = A Bt^T with Bt[N,K] row-major; the same reference and peer
//   with B's operand transposed.
//
// cuBLAS is column-major. A row-major X[r][c] is the column-major X^T, so the row-major
// product C = A B is the column-major C^T = B^T A^T: call cuBLAS with (N, M, K) and B first.
#include "roofline/contract/gemm.cuh"

#include "../../harness/registry.hpp"
#include "cublas_check.hpp"
#include "ops.hpp"

#include <cublas_v2.h>

#include <climits>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace roofline::gemm {

namespace {

using harness::DeviceArray;
using harness::Shape;

template <class T> const char* dtype_of();
template <> const char* dtype_of<float>() { return "fp32"; }
template <> const char* dtype_of<__nv_bfloat16>() { return "bf16"; }

template <class T>
class GemmProblem final : public harness::Problem {
public:
    using Launch = std::conditional_t<std::is_same_v<T, float>, LaunchFp32, LaunchBf16>;
    GemmProblem(Launch launch, bool b_transposed) : launch_(launch), b_transposed_(b_transposed) {}

    ~GemmProblem() override {
        if (handle_ != nullptr) cublasDestroy(handle_);  // no throwing from a destructor
    }
    GemmProblem(const GemmProblem&) = delete;
    GemmProblem& operator=(const GemmProblem&) = delete;

    void setup(const Shape& shape) override {
        auto [m, n, k] = harness::shape_sizes(shape, ops::mnk, "gemm shapes (C[m,n] = A[m,k] B[k,n])");
        // The launch signature takes int dimensions and kernels index with int: keep every
        // matrix's element count within int range so that row * ld + col cannot overflow.
        if (m * k > INT_MAX || k * n > INT_MAX || m * n > INT_MAX)
            throw std::invalid_argument("gemm shape m=" + std::to_string(m) + ", n=" + std::to_string(n) +
                                        ", k=" + std::to_string(k) +
                                        " is too large: each matrix must hold fewer than 2^31 elements");
        m_ = static_cast<int>(m);
        n_ = static_cast<int>(n);
        k_ = static_cast<int>(k);
        a_ = DeviceArray<T>(std::size_t(m) * k);
        b_ = DeviceArray<T>(std::size_t(k) * n);
        c_ = DeviceArray<T>(std::size_t(m) * n, /*guarded=*/true);
        reference_ = DeviceArray<float>(std::size_t(m) * n);
        if (handle_ == nullptr) {
            CUBLAS_CHECK(cublasCreate(&handle_));
            // Explicit, so that nothing upstream can turn TF32 on for the fp32 reference and peer.
            CUBLAS_CHECK(cublasSetMathMode(handle_, CUBLAS_DEFAULT_MATH));
        }
    }

    void fill_inputs(std::uint64_t seed, cudaStream_t stream) override {
        harness::fill_random(a_.data(), a_.size(), seed, -1.0f, 1.0f, stream);
        harness::fill_random(b_.data(), b_.size(), seed ^ 0x9E3779B97F4A7C15ull, -1.0f, 1.0f, stream);
    }

    void poison_outputs(cudaStream_t stream) override {
        harness::poison(c_.data(), c_.size(), stream);
        c_.storage().arm_guards(stream);
    }

    void launch_variant(cudaStream_t stream) override { launch_(a_.data(), b_.data(), c_.data(), m_, n_, k_, stream); }

    void compute_reference(cudaStream_t stream) override {
        cublas_gemm(reference_.data(), CUDA_R_32F, stream);  // the reference is fp32 whatever T is
    }

    harness::VerifyReport verify(const harness::Tolerance& tolerance, cudaStream_t stream) override {
        return harness::compare(c_.data(), reference_.data(), c_.size(), c_.storage(), tolerance, stream);
    }

    std::vector<harness::InputView> inputs() const override {
        return {harness::input_view("A", a_), harness::input_view(b_transposed_ ? "Bt" : "B", b_)};
    }

    std::string peer_name() const override {
        if constexpr (std::is_same_v<T, float>) return "cuBLAS SGEMM (fp32, no TF32)";
        else if (b_transposed_) return "cuBLAS GemmEx, B transposed (bf16 in, fp32 accumulate, bf16 out)";
        else return "cuBLAS GemmEx (bf16 in, fp32 accumulate, bf16 out)";
    }

    void launch_peer(cudaStream_t stream) override { cublas_gemm(c_.data(), CUDA_R_16BF, stream); }

private:
    // C = A B by cuBLAS on `stream`, into `out`: SGEMM for fp32; for bf16, GemmEx with fp32
    // accumulation and `out_type` the type of `out` (fp32 for the reference, bf16 for the peer).
    template <class Out>
    void cublas_gemm(Out* out, cudaDataType_t out_type, cudaStream_t stream) {
        CUBLAS_CHECK(cublasSetStream(handle_, stream));
        const float alpha = 1.0f, beta = 0.0f;
        if constexpr (std::is_same_v<T, float>) {
            CUBLAS_CHECK(cublasSgemm(handle_, CUBLAS_OP_N, CUBLAS_OP_N, n_, m_, k_, &alpha, b_.data(), n_, a_.data(),
                                     k_, &beta, out, n_));
        } else {
            CUBLAS_CHECK(cublasGemmEx(handle_, b_op(), CUBLAS_OP_N, n_, m_, k_, &alpha, b_.data(), CUDA_R_16BF, ldb(),
                                      a_.data(), CUDA_R_16BF, k_, &beta, out, out_type, n_, CUBLAS_COMPUTE_32F,
                                      CUBLAS_GEMM_DEFAULT));
        }
    }

    // Row-major Bt[N,K] is column-major Bt^T[K,N] with leading dimension K; cuBLAS needs Bt, hence OP_T.
    cublasOperation_t b_op() const { return b_transposed_ ? CUBLAS_OP_T : CUBLAS_OP_N; }
    int ldb() const { return b_transposed_ ? k_ : n_; }

    Launch launch_;
    bool b_transposed_;
    int m_ = 0, n_ = 0, k_ = 0;
    cublasHandle_t handle_ = nullptr;
    DeviceArray<T> a_, b_, c_;
    DeviceArray<float> reference_;
};

template <class T, class Launch>
bool add_entry(const char* name, Launch launch, const char* file, bool b_transposed) {
    return harness::register_variant({name, b_transposed ? ops::gemm_abt : ops::gemm, dtype_of<T>(), file,
                                      [launch, b_transposed] {
                                          return std::unique_ptr<harness::Problem>(
                                              new GemmProblem<T>(launch, b_transposed));
                                      }, harness::invoker_of(launch)});
}

}  // namespace

bool register_gemm(const char* name, LaunchFp32 launch, const char* file) {
    return add_entry<float>(name, launch, file, false);
}
bool register_gemm(const char* name, LaunchBf16 launch, const char* file) {
    return add_entry<__nv_bfloat16>(name, launch, file, false);
}
bool register_gemm_abt(const char* name, LaunchBf16ABt launch, const char* file) {
    return add_entry<__nv_bfloat16>(name, launch, file, true);
}

}  // namespace roofline::gemm
