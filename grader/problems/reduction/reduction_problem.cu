// Inputs, trusted reference and peer for lab 06's row sums.
// Reference: one block per row, fp64 accumulation, rounded once to fp32.
// Peer: cudaMemcpy device to device of the first half of x into its second half's
//   worth of scratch: the same bytes moved as the sums read (model.hpp).
#include "roofline/contract/reduction.cuh"

#include "../../harness/registry.hpp"
#include "ops.hpp"

#include <climits>
#include <stdexcept>
#include <string>

namespace roofline::reduction {

namespace {

using harness::DeviceArray;
using harness::Shape;

__global__ void row_sum_reference(const __nv_bfloat16* x, float* sums, int cols) {
    __shared__ double partial[256];
    const __nv_bfloat16* row = x + std::size_t(blockIdx.x) * cols;
    double sum = 0;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) sum += __bfloat162float(row[c]);
    partial[threadIdx.x] = sum;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
        if (threadIdx.x < stride) partial[threadIdx.x] += partial[threadIdx.x + stride];
        __syncthreads();
    }
    if (threadIdx.x == 0) sums[blockIdx.x] = static_cast<float>(partial[0]);
}

class RowSumProblem final : public harness::Problem {
public:
    explicit RowSumProblem(RowSumLaunch launch) : launch_(launch) {}

    void setup(const Shape& shape) override {
        auto [rows, cols] = harness::shape_sizes(shape, ops::rows_cols, "row sums");
        if (rows > INT_MAX || cols > INT_MAX)
            throw std::invalid_argument("row sums take rows and cols below 2^31");
        rows_ = static_cast<int>(rows);
        cols_ = static_cast<int>(cols);
        elements_ = std::size_t(rows) * cols;
        x_ = DeviceArray<__nv_bfloat16>(elements_);
        sums_ = DeviceArray<float>(rows_, /*guarded=*/true);
        reference_ = DeviceArray<float>(rows_);
        peer_scratch_ = DeviceArray<__nv_bfloat16>(elements_ / 2 + 1);
    }
    void fill_inputs(std::uint64_t seed, cudaStream_t stream) override {
        harness::fill_random(x_.data(), elements_, seed, -1.0f, 1.0f, stream);
    }
    void poison_outputs(cudaStream_t stream) override {
        harness::poison(sums_.data(), sums_.size(), stream);
        sums_.storage().arm_guards(stream);
    }
    void launch_variant(cudaStream_t stream) override { launch_(x_.data(), sums_.data(), rows_, cols_, stream); }
    void compute_reference(cudaStream_t stream) override {
        row_sum_reference<<<rows_, 256, 0, stream>>>(x_.data(), reference_.data(), cols_);
        CUDA_CHECK(cudaGetLastError());
    }

    harness::VerifyReport verify(const harness::Tolerance& tolerance, cudaStream_t stream) override {
        return harness::compare(sums_.data(), reference_.data(), sums_.size(), sums_.storage(), tolerance, stream);
    }
    std::vector<harness::InputView> inputs() const override { return {harness::input_view("x", x_)}; }

    std::string peer_name() const override { return "cudaMemcpy device to device (half of x: the same bytes moved)"; }
    void launch_peer(cudaStream_t stream) override {
        CUDA_CHECK(cudaMemcpyAsync(peer_scratch_.data(), x_.data(), elements_ / 2 * 2, cudaMemcpyDeviceToDevice,
                                   stream));
    }

private:
    RowSumLaunch launch_;
    int rows_ = 0, cols_ = 0;
    std::size_t elements_ = 0;
    DeviceArray<__nv_bfloat16> x_, peer_scratch_;
    DeviceArray<float> sums_, reference_;
};

}  // namespace

bool register_row_sum(const char* name, RowSumLaunch launch, const char* file) {
    return harness::register_variant({name, ops::row_sum, "bf16", file, [launch] {
                                          return std::unique_ptr<harness::Problem>(new RowSumProblem(launch));
                                      }, harness::invoker_of(launch)});
}

}  // namespace roofline::reduction
