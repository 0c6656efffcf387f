// Inputs, trusted reference and peer for the gemv family's decode_layer op (lab 09, rung 5):
// one decoder layer at batch 1 (the arithmetic: grader/include/roofline/contract/decode_layer.cuh).
// Inputs: x and the KV cache uniform in [-1, 1); the norms' weights in [0.5, 1.5); every weight
//   matrix uniform in [-a, a) with a = sqrt(3 / K) (K its row length), so each GEMV's outputs
//   have about the spread of its inputs and y stays of size ~1 at any hidden size.
// Reference: plain kernels in fp64 from the exact inputs, one step of the layer each (a block
//   per row of each GEMV, a block per head for the attention), rounded once to fp32 at the end.
// Peer: cudaMemcpy device to device of half of the layer's fewest bytes (model.hpp), so that its
//   reads plus writes are the bytes one step must move: the memory roof of the whole step.
#include "roofline/contract/decode_layer.cuh"

#include "../../harness/registry.hpp"
#include "decode_layer_wire.hpp"
#include "model.hpp"
#include "ops.hpp"

#include <climits>
#include <cmath>
#include <stdexcept>
#include <string>

namespace roofline::gemv {

namespace {

using harness::DeviceArray;
using harness::Shape;

constexpr int kThreads = 128;

__device__ double block_sum(double v, double* shared) {  // every thread gets the block's sum
    shared[threadIdx.x] = v;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
        if (threadIdx.x < stride) shared[threadIdx.x] += shared[threadIdx.x + stride];
        __syncthreads();
    }
    double total = shared[0];
    __syncthreads();
    return total;
}

__global__ void ref_to_double(const __nv_bfloat16* in, double* out, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        out[i] = __bfloat162float(in[i]);
}

// One block: out = in / sqrt(mean(in^2) + eps) * gamma.
__global__ void ref_rmsnorm(const double* in, const __nv_bfloat16* gamma, double* out, int n) {
    __shared__ double shared[kThreads];
    double squares = 0;
    for (int i = threadIdx.x; i < n; i += blockDim.x) squares += in[i] * in[i];
    const double scale = 1.0 / sqrt(block_sum(squares, shared) / n + double(kRmsEpsilon));
    for (int i = threadIdx.x; i < n; i += blockDim.x) out[i] = in[i] * scale * double(__bfloat162float(gamma[i]));
}

// Block r: out[r] = W[r, :] . in.
__global__ void ref_gemv(const __nv_bfloat16* W, const double* in, double* out, int K) {
    __shared__ double shared[kThreads];
    const __nv_bfloat16* row = W + std::size_t(blockIdx.x) * K;
    double sum = 0;
    for (int k = threadIdx.x; k < K; k += blockDim.x) sum += double(__bfloat162float(row[k])) * in[k];
    sum = block_sum(sum, shared);
    if (threadIdx.x == 0) out[blockIdx.x] = sum;
}

// q and k (the first 2 H values of qkv), rotated at `position`: one thread per (vector, head, i < 64).
__global__ void ref_rope(double* qkv, int heads, int position) {
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= 2 * heads * (kHeadDim / 2)) return;
    const int i = t % (kHeadDim / 2), head = t / (kHeadDim / 2);  // head counts q's heads, then k's
    double* u = qkv + std::size_t(head) * kHeadDim;
    const double angle = position * pow(double(kRopeBase), -double(i) / (kHeadDim / 2));
    const double c = cos(angle), s = sin(angle), lo = u[i], hi = u[i + kHeadDim / 2];
    u[i] = lo * c - hi * s;
    u[i + kHeadDim / 2] = hi * c + lo * s;
}

// Block j: head j's output over the cache's positions and the new one (the last).
__global__ void ref_attention(const double* qkv, const __nv_bfloat16* k_cache, const __nv_bfloat16* v_cache,
                              double* scores, double* out, int hidden, int cache) {
    __shared__ double shared[kThreads];
    const int head = blockIdx.x, positions = cache + 1;
    const double* q = qkv + std::size_t(head) * kHeadDim;
    const double* k_new = qkv + hidden + std::size_t(head) * kHeadDim;
    const double* v_new = qkv + 2 * std::size_t(hidden) + std::size_t(head) * kHeadDim;
    const __nv_bfloat16* k_head = k_cache + std::size_t(head) * cache * kHeadDim;
    const __nv_bfloat16* v_head = v_cache + std::size_t(head) * cache * kHeadDim;
    double* s = scores + std::size_t(head) * positions;
    double local_max = -INFINITY;
    for (int p = threadIdx.x; p < positions; p += blockDim.x) {
        double dot = 0;
        for (int d = 0; d < kHeadDim; ++d)
            dot += q[d] * (p < cache ? double(__bfloat162float(k_head[std::size_t(p) * kHeadDim + d])) : k_new[d]);
        s[p] = dot / sqrt(double(kHeadDim));
        local_max = fmax(local_max, s[p]);
    }
    shared[threadIdx.x] = local_max;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
        if (threadIdx.x < stride) shared[threadIdx.x] = fmax(shared[threadIdx.x], shared[threadIdx.x + stride]);
        __syncthreads();
    }
    const double max_score = shared[0];
    __syncthreads();
    double local_sum = 0;
    for (int p = threadIdx.x; p < positions; p += blockDim.x) {
        s[p] = exp(s[p] - max_score);
        local_sum += s[p];
    }
    const double total = block_sum(local_sum, shared);  // its barriers also publish s[]
    for (int d = threadIdx.x; d < kHeadDim; d += blockDim.x) {
        double acc = 0;
        for (int p = 0; p < positions; ++p)
            acc += s[p] * (p < cache ? double(__bfloat162float(v_head[std::size_t(p) * kHeadDim + d])) : v_new[d]);
        out[std::size_t(head) * kHeadDim + d] = acc / total;
    }
}

__global__ void ref_add(const double* a, const double* b, double* out, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) out[i] = a[i] + b[i];
}

// gate_up holds g (ffn values) then u: out = silu(g) * u.
__global__ void ref_silu_mul(const double* gate_up, double* out, int ffn) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < ffn; i += gridDim.x * blockDim.x) {
        const double g = gate_up[i];
        out[i] = g / (1 + exp(-g)) * gate_up[ffn + i];
    }
}

__global__ void ref_add_to_float(const double* a, const double* b, float* out, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        out[i] = static_cast<float>(a[i] + b[i]);
}

class DecodeLayerProblem final : public harness::Problem {
public:
    explicit DecodeLayerProblem(DecodeLayerLaunch launch) : launch_(launch) {}

    void setup(const Shape& shape) override {
        auto sizes = harness::shape_sizes(shape, ops::layer, "decode_layer shapes (one decoder layer at batch 1)");
        if (sizes[0] != sizes[1] * kHeadDim)
            throw std::invalid_argument("decode_layer shape hidden=" + std::to_string(sizes[0]) +
                                        " heads=" + std::to_string(sizes[1]) + ": hidden must be heads x " +
                                        std::to_string(kHeadDim) + " (the head dimension)");
        if (2 * sizes[2] * sizes[0] > INT_MAX || sizes[1] * sizes[3] * kHeadDim > INT_MAX)
            throw std::invalid_argument("decode_layer shape is too large: each array must hold fewer than 2^31 elements");
        hidden_ = int(sizes[0]), heads_ = int(sizes[1]), ffn_ = int(sizes[2]), cache_ = int(sizes[3]);
        const std::size_t H = hidden_, F = ffn_, kv = std::size_t(heads_) * cache_ * kHeadDim;
        x_ = DeviceArray<__nv_bfloat16>(H);
        attn_norm_ = DeviceArray<__nv_bfloat16>(H);
        mlp_norm_ = DeviceArray<__nv_bfloat16>(H);
        w_qkv_ = DeviceArray<__nv_bfloat16>(3 * H * H);
        w_o_ = DeviceArray<__nv_bfloat16>(H * H);
        w_gate_up_ = DeviceArray<__nv_bfloat16>(2 * F * H);
        w_down_ = DeviceArray<__nv_bfloat16>(H * F);
        k_cache_ = DeviceArray<__nv_bfloat16>(kv);
        v_cache_ = DeviceArray<__nv_bfloat16>(kv);
        scratch_ = DeviceArray<float>(decode_scratch_floats(hidden_, heads_, ffn_, cache_));
        y_ = DeviceArray<__nv_bfloat16>(H, /*guarded=*/true);
        reference_ = DeviceArray<float>(H);
        // x, a, qkv (3H), o, attention out, h, b, d: 10 H; gate_up 2F, act F; scores.
        ref_ = DeviceArray<double>(10 * H + 3 * F + std::size_t(heads_) * (cache_ + 1));
        const double layer_bytes = decode_layer_work(hidden_, heads_, ffn_, cache_).bytes;
        peer_bytes_ = std::size_t(layer_bytes / 2);
        peer_scratch_ = harness::DeviceBytes(peer_bytes_ + 1);
        peer_source_ = harness::DeviceBytes(peer_bytes_ + 1);
    }

    void fill_inputs(std::uint64_t seed, cudaStream_t stream) override {
        auto uniform = [&](DeviceArray<__nv_bfloat16>& a, std::uint64_t salt, float lo, float hi) {
            harness::fill_random(a.data(), a.size(), seed ^ (salt * 0x9E3779B97F4A7C15ull), lo, hi, stream);
        };
        auto weights = [&](DeviceArray<__nv_bfloat16>& a, std::uint64_t salt, int row_length) {
            const float bound = std::sqrt(3.0f / row_length);
            uniform(a, salt, -bound, bound);
        };
        uniform(x_, 1, -1, 1);
        uniform(attn_norm_, 2, 0.5f, 1.5f);
        uniform(mlp_norm_, 3, 0.5f, 1.5f);
        weights(w_qkv_, 4, hidden_);
        weights(w_o_, 5, hidden_);
        weights(w_gate_up_, 6, hidden_);
        weights(w_down_, 7, ffn_);
        uniform(k_cache_, 8, -1, 1);
        uniform(v_cache_, 9, -1, 1);
    }

    void poison_outputs(cudaStream_t stream) override {
        harness::poison(y_.data(), y_.size(), stream);
        harness::poison(scratch_.data(), scratch_.size(), stream);  // write before you read
        y_.storage().arm_guards(stream);
    }

    void launch_variant(cudaStream_t stream) override {
        DecodeLayer layer;
        layer.hidden = hidden_, layer.heads = heads_, layer.ffn = ffn_, layer.cache = cache_;
        layer.x = x_.data(), layer.attn_norm = attn_norm_.data(), layer.w_qkv = w_qkv_.data();
        layer.k_cache = k_cache_.data(), layer.v_cache = v_cache_.data(), layer.w_o = w_o_.data();
        layer.mlp_norm = mlp_norm_.data(), layer.w_gate_up = w_gate_up_.data(), layer.w_down = w_down_.data();
        layer.scratch = scratch_.data(), layer.y = y_.data();
        launch_(layer, stream);
    }

    void compute_reference(cudaStream_t stream) override {
        const int H = hidden_, F = ffn_;
        double* x = ref_.data();
        double *a = x + H, *qkv = a + H, *attn = qkv + 3 * H, *o = attn + H, *h = o + H, *b = h + H, *d = b + H;
        double *gate_up = d + H, *act = gate_up + 2 * F, *scores = act + F;
        auto blocks = [](int n) { return (n + kThreads - 1) / kThreads; };
        ref_to_double<<<blocks(H), kThreads, 0, stream>>>(x_.data(), x, H);
        ref_rmsnorm<<<1, kThreads, 0, stream>>>(x, attn_norm_.data(), a, H);
        ref_gemv<<<3 * H, kThreads, 0, stream>>>(w_qkv_.data(), a, qkv, H);
        ref_rope<<<blocks(2 * heads_ * (kHeadDim / 2)), kThreads, 0, stream>>>(qkv, heads_, cache_);
        ref_attention<<<heads_, kThreads, 0, stream>>>(qkv, k_cache_.data(), v_cache_.data(), scores, attn, H,
                                                       cache_);
        ref_gemv<<<H, kThreads, 0, stream>>>(w_o_.data(), attn, o, H);
        ref_add<<<blocks(H), kThreads, 0, stream>>>(x, o, h, H);
        ref_rmsnorm<<<1, kThreads, 0, stream>>>(h, mlp_norm_.data(), b, H);
        ref_gemv<<<2 * F, kThreads, 0, stream>>>(w_gate_up_.data(), b, gate_up, H);
        ref_silu_mul<<<blocks(F), kThreads, 0, stream>>>(gate_up, act, F);
        ref_gemv<<<H, kThreads, 0, stream>>>(w_down_.data(), act, d, F);
        ref_add_to_float<<<blocks(H), kThreads, 0, stream>>>(h, d, reference_.data(), H);
        CUDA_CHECK(cudaGetLastError());
    }

    harness::VerifyReport verify(const harness::Tolerance& tolerance, cudaStream_t stream) override {
        return harness::compare(y_.data(), reference_.data(), y_.size(), y_.storage(), tolerance, stream);
    }

    std::vector<harness::InputView> inputs() const override {
        return {harness::input_view("x", x_),           harness::input_view("attn_norm", attn_norm_),
                harness::input_view("w_qkv", w_qkv_),   harness::input_view("k_cache", k_cache_),
                harness::input_view("v_cache", v_cache_), harness::input_view("w_o", w_o_),
                harness::input_view("mlp_norm", mlp_norm_), harness::input_view("w_gate_up", w_gate_up_),
                harness::input_view("w_down", w_down_)};
    }

    std::string peer_name() const override { return "cudaMemcpy device to device (the layer's bytes moved)"; }

    void launch_peer(cudaStream_t stream) override {
        CUDA_CHECK(
            cudaMemcpyAsync(peer_scratch_.data(), peer_source_.data(), peer_bytes_, cudaMemcpyDeviceToDevice, stream));
    }

private:
    DecodeLayerLaunch launch_;
    int hidden_ = 0, heads_ = 0, ffn_ = 0, cache_ = 0;
    DeviceArray<__nv_bfloat16> x_, attn_norm_, mlp_norm_, w_qkv_, w_o_, w_gate_up_, w_down_, k_cache_, v_cache_, y_;
    DeviceArray<float> scratch_, reference_;
    DeviceArray<double> ref_;
    harness::DeviceBytes peer_scratch_, peer_source_;
    std::size_t peer_bytes_ = 0;
};

}  // namespace

bool register_decode_layer(const char* name, DecodeLayerLaunch launch, const char* file) {
    return harness::register_variant({name, ops::decode_layer, "bf16", file, [launch] {
                                          return std::unique_ptr<harness::Problem>(new DecodeLayerProblem(launch));
                                      }, harness::invoker_of(launch)});
}

}  // namespace roofline::gemv
