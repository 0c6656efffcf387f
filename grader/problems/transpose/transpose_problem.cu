// Inputs, trusted reference and peer for lab 05's transpose (model.hpp has the work).
// Reference: one thread per element, y[c][r] = x[r][c], read straight from global memory.
// Peer: cudaMemcpy device to device of x into a buffer of its size: the same bytes moved.
#include "roofline/contract/transpose.cuh"

#include "../../harness/registry.hpp"
#include "ops.hpp"

#include <climits>
#include <stdexcept>

namespace roofline::transpose {

namespace {

using harness::DeviceArray;
using harness::Shape;

template <class T>
__global__ void transpose_reference(const T* x, T* y, int rows, int cols) {
    std::size_t total = std::size_t(rows) * cols;
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < total;
         i += std::size_t(gridDim.x) * blockDim.x) {
        std::size_t r = i / cols, c = i % cols;
        y[c * rows + r] = x[i];
    }
}

template <class T>
class TransposeProblem final : public harness::Problem {
public:
    explicit TransposeProblem(TransposeLaunch<T> launch) : launch_(launch) {}

    void setup(const Shape& shape) override {
        auto [rows, cols] = harness::shape_sizes(shape, ops::rows_cols, "transposes");
        if (rows > INT_MAX || cols > INT_MAX) throw std::invalid_argument("transposes take rows and cols below 2^31");
        rows_ = static_cast<int>(rows);
        cols_ = static_cast<int>(cols);
        elements_ = std::size_t(rows) * cols;
        x_ = DeviceArray<T>(elements_);
        y_ = DeviceArray<T>(elements_, /*guarded=*/true);
        reference_ = DeviceArray<T>(elements_);
        peer_out_ = DeviceArray<T>(elements_);
    }
    void fill_inputs(std::uint64_t seed, cudaStream_t stream) override {
        harness::fill_random(x_.data(), elements_, seed, -1.0f, 1.0f, stream);
    }
    void poison_outputs(cudaStream_t stream) override {
        harness::poison(y_.data(), elements_, stream);
        y_.storage().arm_guards(stream);
    }
    void launch_variant(cudaStream_t stream) override { launch_(x_.data(), y_.data(), rows_, cols_, stream); }
    void compute_reference(cudaStream_t stream) override {
        transpose_reference<<<1024, 256, 0, stream>>>(x_.data(), reference_.data(), rows_, cols_);
        CUDA_CHECK(cudaGetLastError());
    }

    harness::VerifyReport verify(const harness::Tolerance& tolerance, cudaStream_t stream) override {
        return harness::compare(y_.data(), reference_.data(), elements_, y_.storage(), tolerance, stream);
    }
    std::vector<harness::InputView> inputs() const override { return {harness::input_view("x", x_)}; }

    std::string peer_name() const override { return "cudaMemcpy device to device (x, the same bytes moved)"; }
    void launch_peer(cudaStream_t stream) override {
        CUDA_CHECK(cudaMemcpyAsync(peer_out_.data(), x_.data(), elements_ * sizeof(T), cudaMemcpyDeviceToDevice, stream));
    }

private:
    TransposeLaunch<T> launch_;
    int rows_ = 0, cols_ = 0;
    std::size_t elements_ = 0;
    DeviceArray<T> x_, y_, reference_, peer_out_;
};

template <class T>
bool add_entry(const char* name, const char* dtype, TransposeLaunch<T> launch, const char* file) {
    return harness::register_variant({name, ops::transpose, dtype, file, [launch] {
                                          return std::unique_ptr<harness::Problem>(new TransposeProblem<T>(launch));
                                      }, harness::invoker_of(launch)});
}

}  // namespace

bool register_transpose(const char* name, TransposeLaunch<float> launch, const char* file) {
    return add_entry<float>(name, "fp32", launch, file);
}
bool register_transpose(const char* name, TransposeLaunch<__nv_bfloat16> launch, const char* file) {
    return add_entry<__nv_bfloat16>(name, "bf16", launch, file);
}

}  // namespace roofline::transpose
