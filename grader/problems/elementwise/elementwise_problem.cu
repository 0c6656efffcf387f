// Inputs, trusted reference and peer for the elementwise problems (model.hpp has the work).
// Reference: one thread per element, arithmetic in fp32, rounded once to T.
// Peer: cudaMemcpy device to device of one array, compared in bytes per second.
#include "roofline/contract/elementwise.cuh"

#include "../../harness/registry.hpp"
#include "ops.hpp"

#include <stdexcept>

namespace roofline::elementwise {

namespace {

using harness::DeviceArray;
using harness::Shape;

enum class Op { copy, scale, add, fma_chain };


template <class T, Op op>
__global__ void reference_kernel(const T* a, const T* b, float alpha, T* out, std::size_t n) {
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x) {
        float x = to_float(a[i]);
        float value = op == Op::copy ? x : op == Op::scale ? alpha * x : op == Op::add ? x + to_float(b[i]) : x;
        if (op == Op::fma_chain) {
            for (int step = 0; step < kFmaChainSteps; ++step) value = fmaf(value, kFmaChainA, kFmaChainB);
        }
        out[i] = from_float<T>(value);
    }
}

template <class T, Op op>
class ElementwiseProblem final : public harness::Problem {
public:
    using Launch = std::conditional_t<op == Op::copy || op == Op::fma_chain, CopyLaunch<T>,
                                      std::conditional_t<op == Op::scale, ScaleLaunch<T>, AddLaunch<T>>>;
    explicit ElementwiseProblem(Launch launch) : launch_(launch) {}


    void setup(const Shape& shape) override {
        n_ = static_cast<std::size_t>(harness::shape_sizes(shape, ops::n, "elementwise shapes")[0]);
        a_ = DeviceArray<T>(n_);
        if (op == Op::add) b_ = DeviceArray<T>(n_);
        out_ = DeviceArray<T>(n_, /*guarded=*/true);
        reference_ = DeviceArray<T>(n_);
    }

    void fill_inputs(std::uint64_t seed, cudaStream_t stream) override {
        harness::fill_random(a_.data(), n_, seed, -1.0f, 1.0f, stream);
        if (op == Op::add) harness::fill_random(b_.data(), n_, seed ^ 0xB0B0B0B0ull, -1.0f, 1.0f, stream);
        alpha_ = 0.5f + static_cast<float>(seed % 1000) / 1000.0f;  // a new scale factor per seed too
    }

    void poison_outputs(cudaStream_t stream) override {
        harness::poison(out_.data(), n_, stream);
        out_.storage().arm_guards(stream);
    }

    void launch_variant(cudaStream_t stream) override {
        if constexpr (op == Op::copy || op == Op::fma_chain) launch_(a_.data(), out_.data(), n_, stream);
        else if constexpr (op == Op::scale) launch_(a_.data(), out_.data(), alpha_, n_, stream);
        else launch_(a_.data(), b_.data(), out_.data(), n_, stream);
    }

    void compute_reference(cudaStream_t stream) override {
        reference_kernel<T, op><<<1024, 256, 0, stream>>>(a_.data(), op == Op::add ? b_.data() : nullptr, alpha_,
                                                          reference_.data(), n_);
        CUDA_CHECK(cudaGetLastError());
    }

    harness::VerifyReport verify(const harness::Tolerance& tolerance, cudaStream_t stream) override {
        return harness::compare(out_.data(), reference_.data(), n_, out_.storage(), tolerance, stream);
    }

    std::vector<harness::InputView> inputs() const override {
        if (op == Op::add) return {harness::input_view("a", a_), harness::input_view("b", b_)};
        return {harness::input_view("x", a_)};
    }

    std::string peer_name() const override { return "cudaMemcpy device to device"; }

    void launch_peer(cudaStream_t stream) override {
        CUDA_CHECK(cudaMemcpyAsync(out_.data(), a_.data(), n_ * sizeof(T), cudaMemcpyDeviceToDevice, stream));
    }



private:
    Launch launch_;
    std::size_t n_ = 0;
    float alpha_ = 1;
    DeviceArray<T> a_, b_, out_, reference_;
};

template <class T> const char* dtype_of();
template <> const char* dtype_of<float>() { return "fp32"; }
template <> const char* dtype_of<__nv_bfloat16>() { return "bf16"; }

template <Op op, class T, class Launch>
bool add_entry(const char* name, const char* problem, Launch launch, const char* file) {
    return harness::register_variant({name, problem, dtype_of<T>(), file, [launch] {
                                          return std::unique_ptr<harness::Problem>(
                                              new ElementwiseProblem<T, op>(launch));
                                      }, harness::invoker_of(launch)});
}

}  // namespace

bool register_fma_chain(const char* name, CopyLaunch<float> launch, const char* file) {
    return add_entry<Op::fma_chain, float>(name, ops::fma_chain, launch, file);
}
bool register_copy(const char* name, CopyLaunch<float> launch, const char* file) {
    return add_entry<Op::copy, float>(name, ops::copy, launch, file);
}
bool register_copy(const char* name, CopyLaunch<__nv_bfloat16> launch, const char* file) {
    return add_entry<Op::copy, __nv_bfloat16>(name, ops::copy, launch, file);
}
bool register_scale(const char* name, ScaleLaunch<float> launch, const char* file) {
    return add_entry<Op::scale, float>(name, ops::scale, launch, file);
}
bool register_scale(const char* name, ScaleLaunch<__nv_bfloat16> launch, const char* file) {
    return add_entry<Op::scale, __nv_bfloat16>(name, ops::scale, launch, file);
}
bool register_add(const char* name, AddLaunch<float> launch, const char* file) {
    return add_entry<Op::add, float>(name, ops::add, launch, file);
}
bool register_add(const char* name, AddLaunch<__nv_bfloat16> launch, const char* file) {
    return add_entry<Op::add, __nv_bfloat16>(name, ops::add, launch, file);
}

}  // namespace roofline::elementwise
