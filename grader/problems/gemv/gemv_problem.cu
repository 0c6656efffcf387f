// Inputs, trusted reference and peers for the gemv family (lab 09).
// Inputs: W, x uniform in [-1, 1) (bf16); int8 weights uniform integers in [-127, 127]; e4m3
//   weights uniform in [-4, 4) rounded to e4m3; scales uniform in [0.5, 2) / 127 (int8) or
//   [0.5, 2) (e4m3), so every op's y is of the same size (tens).
// Reference: one block per output element, fp64 accumulation of the exact weights times x
//   (times the channel's scale), rounded once to fp32.
// Peer: gemv, gemv_int8, gemv_fp8: cudaMemcpy device to device of half of W's bytes, so that
//   its reads plus writes are W's size: the memory roof for reading W once (model.hpp).
//   gemv_batched: cuBLAS GemmEx doing the same product (bf16 in, fp32 accumulate, bf16 out); at
//   M = 1 that is cuBLAS's GEMV.
// Also measured (shown, never scored), for the single-row ops: cuBLAS GemmEx at M = 1 on bf16
//   weights of the same shape, into a y of its own. For gemv it is the same product by the
//   library; for gemv_int8 and gemv_fp8 it is the bf16 baseline (its own random bf16 W) whose
//   time, over the variant's, is the speedup quantizing bought.
#include "roofline/contract/gemv.cuh"

#include "../../harness/registry.hpp"
#include "../gemm/cublas_check.hpp"
#include "ops.hpp"

#include <cublas_v2.h>

#include <climits>
#include <functional>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace roofline::gemv {

namespace {

using harness::DeviceArray;
using harness::Shape;

// The one launch every op reduces to: Y[M,N] = scale[n] * X[M,K] W[N,K]^T (no scale for bf16).
template <class Weight>
using AnyLaunch = std::function<void(const Weight* W, const float* scale, const __nv_bfloat16* X, __nv_bfloat16* Y,
                                     int M, int N, int K, cudaStream_t stream)>;

__device__ inline double weight_value(__nv_bfloat16 w) { return __bfloat162float(w); }
__device__ inline double weight_value(std::int8_t w) { return w; }
__device__ inline double weight_value(__nv_fp8_e4m3 w) { return static_cast<float>(w); }

constexpr int kReferenceThreads = 128;

// Block (n, m) computes Y[m][n].
template <class Weight>
__global__ void gemv_reference(const Weight* W, const float* scale, const __nv_bfloat16* X, float* Y, int N, int K) {
    __shared__ double partial[kReferenceThreads];
    const int n = blockIdx.x, m = blockIdx.y;
    const Weight* w_row = W + std::size_t(n) * K;
    const __nv_bfloat16* x_row = X + std::size_t(m) * K;
    double sum = 0;
    for (int k = threadIdx.x; k < K; k += blockDim.x) sum += weight_value(w_row[k]) * double(__bfloat162float(x_row[k]));
    partial[threadIdx.x] = sum;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
        if (threadIdx.x < stride) partial[threadIdx.x] += partial[threadIdx.x + stride];
        __syncthreads();
    }
    if (threadIdx.x == 0) Y[std::size_t(m) * N + n] = static_cast<float>(scale ? partial[0] * scale[n] : partial[0]);
}

__host__ __device__ inline std::uint64_t mix(std::uint64_t x) {  // splitmix64
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

__global__ void fill_int8(std::int8_t* data, std::size_t count, std::uint64_t seed) {
    const std::uint64_t key = mix(seed);
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < count;
         i += std::size_t(gridDim.x) * blockDim.x)
        data[i] = static_cast<std::int8_t>(int(mix(key ^ i) % 255) - 127);
}

__global__ void fill_e4m3(__nv_fp8_e4m3* data, std::size_t count, std::uint64_t seed) {
    const std::uint64_t key = mix(seed);
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < count;
         i += std::size_t(gridDim.x) * blockDim.x) {
        float unit = (mix(key ^ i) >> 40) * (1.0f / 16777216.0f);
        data[i] = __nv_fp8_e4m3(-4.0f + 8.0f * unit);
    }
}

template <class Weight> constexpr bool kQuantized = !std::is_same_v<Weight, __nv_bfloat16>;

template <class Weight>
class GemvProblem final : public harness::Problem {
public:
    GemvProblem(AnyLaunch<Weight> launch, bool batched) : launch_(std::move(launch)), batched_(batched) {}
    ~GemvProblem() override {
        if (handle_ != nullptr) cublasDestroy(handle_);  // no throwing from a destructor
    }
    GemvProblem(const GemvProblem&) = delete;
    GemvProblem& operator=(const GemvProblem&) = delete;

    void setup(const Shape& shape) override {
        long long m = 1, n = 0, k = 0;
        if (batched_) {
            auto sizes = harness::shape_sizes(shape, ops::mnk, "batched gemv shapes (Y[m,n] = X[m,k] W[n,k]^T)");
            m = sizes[0], n = sizes[1], k = sizes[2];
        } else {
            auto sizes = harness::shape_sizes(shape, ops::nk, "gemv shapes (y[n] = W[n,k] x[k])");
            n = sizes[0], k = sizes[1];
        }
        // Kernels index with int: every array's element count must fit.
        if (n * k > INT_MAX || m * k > INT_MAX || m * n > INT_MAX)
            throw std::invalid_argument("gemv shape m=" + std::to_string(m) + ", n=" + std::to_string(n) + ", k=" +
                                        std::to_string(k) + " is too large: each array must hold fewer than 2^31 elements");
        m_ = int(m), n_ = int(n), k_ = int(k);
        w_ = DeviceArray<Weight>(std::size_t(n) * k);
        x_ = DeviceArray<__nv_bfloat16>(std::size_t(m) * k);
        y_ = DeviceArray<__nv_bfloat16>(std::size_t(m) * n, /*guarded=*/true);
        reference_ = DeviceArray<float>(std::size_t(m) * n);
        if constexpr (kQuantized<Weight>) scale_ = DeviceArray<float>(n);
        if (handle_ == nullptr) CUBLAS_CHECK(cublasCreate(&handle_));
        if (!batched_) {
            peer_bytes_ = w_.size() * sizeof(Weight) / 2;
            peer_scratch_ = harness::DeviceBytes(peer_bytes_ + 1);
            also_y_ = DeviceArray<__nv_bfloat16>(std::size_t(n));
            if constexpr (kQuantized<Weight>) also_w_ = DeviceArray<__nv_bfloat16>(std::size_t(n) * k);
        }
    }

    void fill_inputs(std::uint64_t seed, cudaStream_t stream) override {
        harness::fill_random(x_.data(), x_.size(), seed ^ 0x9E3779B97F4A7C15ull, -1.0f, 1.0f, stream);
        if constexpr (std::is_same_v<Weight, __nv_bfloat16>) {
            harness::fill_random(w_.data(), w_.size(), seed, -1.0f, 1.0f, stream);
        } else if constexpr (std::is_same_v<Weight, std::int8_t>) {
            fill_int8<<<1024, 256, 0, stream>>>(w_.data(), w_.size(), seed);
            harness::fill_random(scale_.data(), scale_.size(), seed + 1, 0.5f / 127, 2.0f / 127, stream);
        } else {
            fill_e4m3<<<1024, 256, 0, stream>>>(w_.data(), w_.size(), seed);
            harness::fill_random(scale_.data(), scale_.size(), seed + 1, 0.5f, 2.0f, stream);
        }
        if (also_w_.size() > 0) harness::fill_random(also_w_.data(), also_w_.size(), seed + 2, -1.0f, 1.0f, stream);
        CUDA_CHECK(cudaGetLastError());
    }

    void poison_outputs(cudaStream_t stream) override {
        harness::poison(y_.data(), y_.size(), stream);
        y_.storage().arm_guards(stream);
    }

    void launch_variant(cudaStream_t stream) override {
        launch_(w_.data(), scale_data(), x_.data(), y_.data(), m_, n_, k_, stream);
    }

    void compute_reference(cudaStream_t stream) override {
        gemv_reference<Weight><<<dim3(n_, m_), kReferenceThreads, 0, stream>>>(w_.data(), scale_data(), x_.data(),
                                                                                reference_.data(), n_, k_);
        CUDA_CHECK(cudaGetLastError());
    }

    harness::VerifyReport verify(const harness::Tolerance& tolerance, cudaStream_t stream) override {
        return harness::compare(y_.data(), reference_.data(), y_.size(), y_.storage(), tolerance, stream);
    }

    std::vector<harness::InputView> inputs() const override {
        std::vector<harness::InputView> views{harness::input_view("W", w_), harness::input_view(batched_ ? "X" : "x", x_)};
        if constexpr (kQuantized<Weight>) views.push_back(harness::input_view("scale", scale_));
        return views;
    }

    std::string peer_name() const override {
        if (batched_) return "cuBLAS GemmEx, W transposed (bf16 in, fp32 accumulate, bf16 out)";
        return "cudaMemcpy device to device (half of W: W's bytes moved)";
    }

    void launch_peer(cudaStream_t stream) override {
        if (!batched_) {
            CUDA_CHECK(cudaMemcpyAsync(peer_scratch_.data(), w_.data(), peer_bytes_, cudaMemcpyDeviceToDevice, stream));
            return;
        }
        // Row-major Y[M,N] = X W^T is column-major Y^T[N,M] = W X^T: W row-major [N,K] is
        // column-major [K,N] with leading dimension K, hence OP_T.
        CUBLAS_CHECK(cublasSetStream(handle_, stream));
        const float alpha = 1.0f, beta = 0.0f;
        CUBLAS_CHECK(cublasGemmEx(handle_, CUBLAS_OP_T, CUBLAS_OP_N, n_, m_, k_, &alpha, w_.data(), CUDA_R_16BF, k_,
                                  x_.data(), CUDA_R_16BF, k_, &beta, y_.data(), CUDA_R_16BF, n_, CUBLAS_COMPUTE_32F,
                                  CUBLAS_GEMM_DEFAULT));
    }

    std::string also_measured_name() const override {
        if (batched_) return {};
        if constexpr (kQuantized<Weight>) return "cuBLAS GemmEx at M = 1 on bf16 weights of this shape";
        return "cuBLAS GemmEx at M = 1 (its GEMV)";
    }

    void launch_also_measured(cudaStream_t stream) override {
        const __nv_bfloat16* w_bf16 = nullptr;
        if constexpr (kQuantized<Weight>) w_bf16 = also_w_.data();
        else w_bf16 = w_.data();
        CUBLAS_CHECK(cublasSetStream(handle_, stream));
        const float alpha = 1.0f, beta = 0.0f;
        CUBLAS_CHECK(cublasGemmEx(handle_, CUBLAS_OP_T, CUBLAS_OP_N, n_, 1, k_, &alpha, w_bf16, CUDA_R_16BF, k_,
                                  x_.data(), CUDA_R_16BF, k_, &beta, also_y_.data(), CUDA_R_16BF, n_,
                                  CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
    }

private:
    const float* scale_data() const {
        if constexpr (kQuantized<Weight>) return scale_.data();
        return nullptr;
    }

    AnyLaunch<Weight> launch_;
    bool batched_;
    int m_ = 1, n_ = 0, k_ = 0;
    cublasHandle_t handle_ = nullptr;
    DeviceArray<Weight> w_;
    DeviceArray<__nv_bfloat16> x_, y_;
    DeviceArray<__nv_bfloat16> also_w_, also_y_;  // cuBLAS's bf16 GEMV beside the peer (quantized ops: its own W)
    DeviceArray<float> scale_, reference_;
    harness::DeviceBytes peer_scratch_;
    std::size_t peer_bytes_ = 0;
};

template <class Weight>
bool add_entry(const char* name, const char* op, const char* file, AnyLaunch<Weight> launch, bool batched,
               harness::Invoker invoker) {
    return harness::register_variant({name, op, "bf16", file, [launch, batched] {
                                          return std::unique_ptr<harness::Problem>(
                                              new GemvProblem<Weight>(launch, batched));
                                      }, std::move(invoker)});
}

}  // namespace

// Every op's dtype is bf16, the type of x and y (and of the arithmetic the roofline's
// compute ceiling stands for); the op names the weights' format.
bool register_gemv(const char* name, GemvLaunch launch, const char* file) {
    return add_entry<__nv_bfloat16>(
        name, ops::gemv, file,
        [launch](const __nv_bfloat16* W, const float*, const __nv_bfloat16* x, __nv_bfloat16* y, int, int N, int K,
                 cudaStream_t s) { launch(W, x, y, N, K, s); },
        false, harness::invoker_of(launch));
}
bool register_gemv_batched(const char* name, GemvBatchedLaunch launch, const char* file) {
    return add_entry<__nv_bfloat16>(
        name, ops::gemv_batched, file,
        [launch](const __nv_bfloat16* W, const float*, const __nv_bfloat16* X, __nv_bfloat16* Y, int M, int N, int K,
                 cudaStream_t s) { launch(W, X, Y, M, N, K, s); },
        true, harness::invoker_of(launch));
}
bool register_gemv_int8(const char* name, GemvInt8Launch launch, const char* file) {
    return add_entry<std::int8_t>(
        name, ops::gemv_int8, file,
        [launch](const std::int8_t* W, const float* scale, const __nv_bfloat16* x, __nv_bfloat16* y, int, int N, int K,
                 cudaStream_t s) { launch(W, scale, x, y, N, K, s); },
        false, harness::invoker_of(launch));
}
bool register_gemv_fp8(const char* name, GemvFp8Launch launch, const char* file) {
    return add_entry<__nv_fp8_e4m3>(
        name, ops::gemv_fp8, file,
        [launch](const __nv_fp8_e4m3* W, const float* scale, const __nv_bfloat16* x, __nv_bfloat16* y, int, int N,
                 int K, cudaStream_t s) { launch(W, scale, x, y, N, K, s); },
        false, harness::invoker_of(launch));
}

}  // namespace roofline::gemv
