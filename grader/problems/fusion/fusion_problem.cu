// Inputs, trusted references and peer for lab 04's fusion problems.
// References compute in fp32 (fp64 for the row sums) and round once, into fp32
// buffers; outputs are compared in bf16 against them. Peer: cudaMemcpy device
// to device of x, compared in bytes per second.
#include "roofline/contract/fusion.cuh"

#include "../../harness/registry.hpp"
#include "ops.hpp"

#include <stdexcept>

namespace roofline::fusion {

namespace {

using harness::DeviceArray;
using harness::Shape;

__global__ void chain_reference(const __nv_bfloat16* x, float a, float b, float c, float* out, std::size_t n) {
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x) {
        out[i] = gelu_tanh(__bfloat162float(x[i]) * a + b) * c;
    }
}

// One block per row: the sum of squares in fp64, then the scaled row.
__global__ void rmsnorm_reference(const __nv_bfloat16* x, const __nv_bfloat16* w, float* out, int cols) {
    __shared__ double partial[256];
    const __nv_bfloat16* row = x + std::size_t(blockIdx.x) * cols;
    double sum = 0;
    for (int j = threadIdx.x; j < cols; j += blockDim.x) {
        double v = __bfloat162float(row[j]);
        sum += v * v;
    }
    partial[threadIdx.x] = sum;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
        if (threadIdx.x < stride) partial[threadIdx.x] += partial[threadIdx.x + stride];
        __syncthreads();
    }
    float inv_rms = static_cast<float>(1.0 / sqrt(partial[0] / cols + kRmsNormEps));
    for (int j = threadIdx.x; j < cols; j += blockDim.x) {
        out[std::size_t(blockIdx.x) * cols + j] = __bfloat162float(row[j]) * inv_rms * __bfloat162float(w[j]);
    }
}

class ChainProblem final : public harness::Problem {
public:
    explicit ChainProblem(ChainLaunch launch) : launch_(launch) {}

    void setup(const Shape& shape) override {
        n_ = static_cast<std::size_t>(harness::shape_sizes(shape, ops::n, "chain shapes")[0]);
        x_ = DeviceArray<__nv_bfloat16>(n_);
        y_ = DeviceArray<__nv_bfloat16>(n_, /*guarded=*/true);
        reference_ = DeviceArray<float>(n_);
    }
    void fill_inputs(std::uint64_t seed, cudaStream_t stream) override {
        harness::fill_random(x_.data(), n_, seed, -3.0f, 3.0f, stream);  // GELU's curved part
        a_ = 0.5f + (seed % 97) / 97.0f;
        b_ = -0.5f + (seed % 89) / 89.0f;
        c_ = 0.75f + (seed % 83) / 166.0f;
    }
    void poison_outputs(cudaStream_t stream) override {
        harness::poison(y_.data(), n_, stream);
        y_.storage().arm_guards(stream);
    }
    void launch_variant(cudaStream_t stream) override { launch_(x_.data(), y_.data(), a_, b_, c_, n_, stream); }
    void compute_reference(cudaStream_t stream) override {
        chain_reference<<<1024, 256, 0, stream>>>(x_.data(), a_, b_, c_, reference_.data(), n_);
        CUDA_CHECK(cudaGetLastError());
    }

    harness::VerifyReport verify(const harness::Tolerance& tolerance, cudaStream_t stream) override {
        return harness::compare(y_.data(), reference_.data(), n_, y_.storage(), tolerance, stream);
    }
    std::vector<harness::InputView> inputs() const override { return {harness::input_view("x", x_)}; }
    std::string peer_name() const override { return "cudaMemcpy device to device"; }
    void launch_peer(cudaStream_t stream) override {
        CUDA_CHECK(cudaMemcpyAsync(y_.data(), x_.data(), n_ * 2, cudaMemcpyDeviceToDevice, stream));
    }

private:
    ChainLaunch launch_;
    std::size_t n_ = 0;
    float a_ = 1, b_ = 0, c_ = 1;
    DeviceArray<__nv_bfloat16> x_, y_;
    DeviceArray<float> reference_;
};

class RmsNormProblem final : public harness::Problem {
public:
    explicit RmsNormProblem(RmsNormLaunch launch) : launch_(launch) {}

    void setup(const Shape& shape) override {
        auto [rows, cols] = harness::shape_sizes(shape, ops::rows_cols, "RMSNorm shapes");
        rows_ = static_cast<int>(rows);
        cols_ = static_cast<int>(cols);
        elements_ = std::size_t(rows_) * cols_;
        x_ = DeviceArray<__nv_bfloat16>(elements_);
        w_ = DeviceArray<__nv_bfloat16>(cols_);
        y_ = DeviceArray<__nv_bfloat16>(elements_, /*guarded=*/true);
        scratch_ = DeviceArray<float>(rows_);
        reference_ = DeviceArray<float>(elements_);
    }
    void fill_inputs(std::uint64_t seed, cudaStream_t stream) override {
        harness::fill_random(x_.data(), elements_, seed, -2.0f, 2.0f, stream);
        harness::fill_random(w_.data(), cols_, seed ^ 0x5EEDull, 0.5f, 1.5f, stream);
    }
    void poison_outputs(cudaStream_t stream) override {
        harness::poison(y_.data(), elements_, stream);
        y_.storage().arm_guards(stream);
    }
    void launch_variant(cudaStream_t stream) override {
        launch_(x_.data(), w_.data(), y_.data(), scratch_.data(), rows_, cols_, stream);
    }
    void compute_reference(cudaStream_t stream) override {
        rmsnorm_reference<<<rows_, 256, 0, stream>>>(x_.data(), w_.data(), reference_.data(), cols_);
        CUDA_CHECK(cudaGetLastError());
    }

    harness::VerifyReport verify(const harness::Tolerance& tolerance, cudaStream_t stream) override {
        return harness::compare(y_.data(), reference_.data(), elements_, y_.storage(), tolerance, stream);
    }
    std::vector<harness::InputView> inputs() const override {
        return {harness::input_view("x", x_), harness::input_view("weight", w_)};
    }
    std::string peer_name() const override { return "cudaMemcpy device to device"; }
    void launch_peer(cudaStream_t stream) override {
        CUDA_CHECK(cudaMemcpyAsync(y_.data(), x_.data(), elements_ * 2, cudaMemcpyDeviceToDevice, stream));
    }

private:
    RmsNormLaunch launch_;
    int rows_ = 0, cols_ = 0;
    std::size_t elements_ = 0;
    DeviceArray<__nv_bfloat16> x_, w_, y_;
    DeviceArray<float> scratch_, reference_;
};

}  // namespace

bool register_chain(const char* name, ChainLaunch launch, const char* file) {
    return harness::register_variant(
        {name, ops::chain, "bf16", file, [launch] { return std::unique_ptr<harness::Problem>(new ChainProblem(launch)); }, harness::invoker_of(launch)});
}

bool register_rmsnorm(const char* name, RmsNormLaunch launch, const char* file) {
    return harness::register_variant({name, ops::rmsnorm, "bf16", file, [launch] {
                                          return std::unique_ptr<harness::Problem>(new RmsNormProblem(launch));
                                      }, harness::invoker_of(launch)});
}

}  // namespace roofline::fusion
