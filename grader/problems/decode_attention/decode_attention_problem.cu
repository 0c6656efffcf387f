// Inputs, trusted reference and peer for lab 10's decode attention (decode_attention.cuh).
//
// Inputs: q and K uniform in [-3, 3), V uniform in [-1, 1): a score q.k / sqrt(128) then has a
//   standard deviation of about 3, so each softmax is peaked and a wrong max, rescaling or head
//   mapping moves the output visibly (lab 08's attention_problem.cu works this out). Two
//   changes make the positions a kernel most often gets wrong visible too:
//   - the newest position of every sequence (lengths[b] - 1, the token being decoded) gets the
//     key +-1.5 with the sign of its group's summed queries, a score of about 12 for each of
//     the 4 heads: most of the weight at 127 positions, about a quarter at 4k. Dropping the
//     new token (an off-by-one at the end) changes the output.
//   - every position at or past lengths[b] holds NaN in K and V: reading past a sequence's
//     end, or mixing a garbage row in with a weight of zero, gives NaN.
//   lengths[b] follow sequence_length() (decode_attention_shape.hpp): ragged at the verify shapes.
// Reference, plain, one (sequence, query head) at a time:
//   1. one thread per position: the score q.k summed in fp64 from the exact bf16 products,
//      times 1/sqrt(128), rounded to fp32;
//   2. one block per (sequence, query head): the scores' max (fp32), the weights
//      exp(s - max) in fp32, their sum in fp64, and thread d sums weight x V[p][d] in fp64
//      over the positions, divides by the sum and rounds to fp32.
//   The variant's bf16 out is compared with that fp32 out.
// Peer: cudaMemcpy device to device of half of the fewest bytes (model.hpp), so that its reads
//   plus writes are what one decode attention must move: the memory roof, in the same run.
#include "roofline/contract/decode_attention.cuh"

#include "../../harness/registry.hpp"
#include "model.hpp"

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace roofline::decode_attention {

namespace {

using harness::DeviceArray;
using harness::Shape;

constexpr int kThreads = 128;
constexpr float kNewestKey = 1.5f;  // exact in bf16

// One thread per (sequence, KV head, dimension): the newest position's key follows its group's queries.
__global__ void plant_newest_key(const __nv_bfloat16* q, __nv_bfloat16* k, const int* lengths, int batch,
                                 int capacity) {
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= batch * kKvHeads * kHeadDim) return;
    const int d = t % kHeadDim, g = (t / kHeadDim) % kKvHeads, b = t / (kHeadDim * kKvHeads);
    float sum = 0;
    for (int j = 0; j < kGroup; ++j) sum += __bfloat162float(q[(std::size_t(b) * kQueryHeads + g * kGroup + j) * kHeadDim + d]);
    const std::size_t row = (std::size_t(b) * kKvHeads + g) * capacity + (lengths[b] - 1);
    k[row * kHeadDim + d] = __float2bfloat16(sum >= 0 ? kNewestKey : -kNewestKey);
}

// Every K and V element at a position >= lengths[b]: NaN.
__global__ void poison_past_lengths(__nv_bfloat16* k, __nv_bfloat16* v, const int* lengths, int capacity,
                                    std::size_t count) {
    const __nv_bfloat16 nan = __ushort_as_bfloat16(0x7FC0);
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < count;
         i += std::size_t(gridDim.x) * blockDim.x) {
        const std::size_t row = i / kHeadDim;
        const int position = int(row % capacity);
        const int b = int(row / capacity / kKvHeads);
        if (position >= lengths[b]) k[i] = nan, v[i] = nan;
    }
}

// Step 1: grid (positions / 128, batch x 32 query heads), a thread per position.
__global__ void reference_scores(const __nv_bfloat16* q, const __nv_bfloat16* k, const int* lengths, float* scores,
                                 int capacity) {
    const int p = blockIdx.x * blockDim.x + threadIdx.x, bh = blockIdx.y;
    const int b = bh / kQueryHeads, h = bh % kQueryHeads, g = h / kGroup;
    if (p >= lengths[b]) return;
    const __nv_bfloat16* q_row = q + std::size_t(bh) * kHeadDim;
    const __nv_bfloat16* k_row = k + ((std::size_t(b) * kKvHeads + g) * capacity + p) * kHeadDim;
    double dot = 0;
    for (int d = 0; d < kHeadDim; ++d) dot += double(__bfloat162float(q_row[d])) * double(__bfloat162float(k_row[d]));
    scores[std::size_t(bh) * capacity + p] = float(dot * double(softmax_scale()));
}

// Step 2: block (batch x 32 query heads), thread d: out[d] = sum_p w_p V[p][d] / sum_p w_p.
__global__ void reference_softmax_pv(const float* scores, const __nv_bfloat16* v, const int* lengths, float* out,
                                     int capacity) {
    __shared__ float max_part[kThreads];
    __shared__ double sum_part[kThreads];
    const int bh = blockIdx.x, b = bh / kQueryHeads, g = (bh % kQueryHeads) / kGroup, d = threadIdx.x;
    const int length = lengths[b];
    const float* s = scores + std::size_t(bh) * capacity;
    float m = -INFINITY;
    for (int p = d; p < length; p += kThreads) m = fmaxf(m, s[p]);
    max_part[d] = m;
    __syncthreads();
    for (int stride = kThreads / 2; stride > 0; stride /= 2) {
        if (d < stride) max_part[d] = fmaxf(max_part[d], max_part[d + stride]);
        __syncthreads();
    }
    m = max_part[0];
    double sum = 0;
    for (int p = d; p < length; p += kThreads) sum += double(expf(s[p] - m));
    sum_part[d] = sum;
    __syncthreads();
    for (int stride = kThreads / 2; stride > 0; stride /= 2) {
        if (d < stride) sum_part[d] += sum_part[d + stride];
        __syncthreads();
    }
    sum = sum_part[0];
    const __nv_bfloat16* v_head = v + (std::size_t(b) * kKvHeads + g) * capacity * kHeadDim;
    double acc = 0;
    for (int p = 0; p < length; ++p)
        acc += double(expf(s[p] - m)) * double(__bfloat162float(v_head[std::size_t(p) * kHeadDim + d]));
    out[std::size_t(bh) * kHeadDim + d] = float(acc / sum);
}

class DecodeAttentionProblem final : public harness::Problem {
public:
    explicit DecodeAttentionProblem(DecodeAttentionLaunch launch) : launch_(launch) {}

    void setup(const Shape& shape) override {
        auto [batch, context, shortest] = harness::shape_sizes<3>(
            shape, {"batch", "context", "shortest"},
            "decode attention shapes (batch sequences, the longest `context` positions, the shortest `shortest`)");
        if (shortest > context)
            throw std::invalid_argument("decode attention: shortest (" + std::to_string(shortest) +
                                        ") must not exceed context (" + std::to_string(context) + ")");
        if (batch > 2048 || context > (1 << 24))
            throw std::invalid_argument("decode attention takes batch <= 2048 and context <= 2^24 (got batch " +
                                        std::to_string(batch) + ", context " + std::to_string(context) + ")");
        batch_ = int(batch), capacity_ = int(context);
        const std::size_t cache_elements = std::size_t(batch) * kKvHeads * capacity_ * kHeadDim;
        const std::size_t score_floats = std::size_t(batch) * kQueryHeads * capacity_;
        const double bytes = work_of(double(batch), double(context), double(shortest)).bytes;
        peer_bytes_ = std::size_t(bytes / 2);
        std::size_t free_bytes = 0, total_bytes = 0;
        CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
        const double needed = 2.0 * cache_elements * 2 + 4.0 * score_floats + 2.0 * peer_bytes_;
        if (needed > 0.9 * double(free_bytes)) {
            throw std::invalid_argument("decode attention at batch " + std::to_string(batch) + ", context " +
                                        std::to_string(context) + " needs " + std::to_string(needed / 1e9) +
                                        " GB (cache, reference scores, peer); the GPU has " +
                                        std::to_string(free_bytes / 1e9) + " GB free; give a smaller shape");
        }
        host_lengths_.resize(batch_);
        for (int b = 0; b < batch_; ++b) host_lengths_[b] = int(sequence_length(b, batch, context, shortest));
        q_ = DeviceArray<__nv_bfloat16>(std::size_t(batch) * kQueryHeads * kHeadDim);
        k_ = DeviceArray<__nv_bfloat16>(cache_elements);
        v_ = DeviceArray<__nv_bfloat16>(cache_elements);
        lengths_ = DeviceArray<int>(batch_);
        out_ = DeviceArray<__nv_bfloat16>(q_.size(), /*guarded=*/true);
        workspace_ = DeviceArray<float>(decode_attention_workspace_floats(batch_));
        scores_ = DeviceArray<float>(score_floats);
        reference_ = DeviceArray<float>(out_.size());
        peer_source_ = harness::DeviceBytes(peer_bytes_ + 1);
        peer_scratch_ = harness::DeviceBytes(peer_bytes_ + 1);
    }

    void fill_inputs(std::uint64_t seed, cudaStream_t stream) override {
        // From pageable memory the copy has read host_lengths_ when it returns (it outlives it anyway).
        CUDA_CHECK(cudaMemcpyAsync(lengths_.data(), host_lengths_.data(), host_lengths_.size() * sizeof(int),
                                   cudaMemcpyHostToDevice, stream));
        harness::fill_random(q_.data(), q_.size(), seed, -3.0f, 3.0f, stream);
        harness::fill_random(k_.data(), k_.size(), seed ^ 0x9E3779B97F4A7C15ull, -3.0f, 3.0f, stream);
        harness::fill_random(v_.data(), v_.size(), seed ^ 0xC2B2AE3D27D4EB4Full, -1.0f, 1.0f, stream);
        const int planted = batch_ * kKvHeads * kHeadDim;
        plant_newest_key<<<(planted + kThreads - 1) / kThreads, kThreads, 0, stream>>>(q_.data(), k_.data(),
                                                                                     lengths_.data(), batch_, capacity_);
        poison_past_lengths<<<4096, 256, 0, stream>>>(k_.data(), v_.data(), lengths_.data(), capacity_, k_.size());
        CUDA_CHECK(cudaGetLastError());
    }

    void compute_reference(cudaStream_t stream) override {
        reference_scores<<<dim3((capacity_ + kThreads - 1) / kThreads, batch_ * kQueryHeads), kThreads, 0, stream>>>(
            q_.data(), k_.data(), lengths_.data(), scores_.data(), capacity_);
        reference_softmax_pv<<<batch_ * kQueryHeads, kThreads, 0, stream>>>(scores_.data(), v_.data(), lengths_.data(),
                                                                            reference_.data(), capacity_);
        CUDA_CHECK(cudaGetLastError());
    }

    void poison_outputs(cudaStream_t stream) override {
        harness::poison(out_.data(), out_.size(), stream);
        harness::poison(workspace_.data(), workspace_.size(), stream);  // write before you read
        out_.storage().arm_guards(stream);
    }

    void launch_variant(cudaStream_t stream) override {
        launch_(q_.data(), k_.data(), v_.data(), lengths_.data(), out_.data(), workspace_.data(), batch_, capacity_,
                stream);
    }

    harness::VerifyReport verify(const harness::Tolerance& tolerance, cudaStream_t stream) override {
        return harness::compare(out_.data(), reference_.data(), out_.size(), out_.storage(), tolerance, stream);
    }

    std::vector<harness::InputView> inputs() const override {
        return {harness::input_view("q", q_), harness::input_view("k_cache", k_), harness::input_view("v_cache", v_),
                harness::input_view("lengths", lengths_)};
    }

    std::string peer_name() const override {
        return "cudaMemcpy device to device (half of the bytes: K and V of every sequence's positions, q and out "
               "moved)";
    }

    void launch_peer(cudaStream_t stream) override {
        CUDA_CHECK(cudaMemcpyAsync(peer_scratch_.data(), peer_source_.data(), peer_bytes_, cudaMemcpyDeviceToDevice,
                                   stream));
    }

private:
    DecodeAttentionLaunch launch_;
    int batch_ = 0, capacity_ = 0;
    std::vector<int> host_lengths_;
    DeviceArray<__nv_bfloat16> q_, k_, v_, out_;
    DeviceArray<int> lengths_;
    DeviceArray<float> workspace_, scores_, reference_;
    harness::DeviceBytes peer_source_, peer_scratch_;
    std::size_t peer_bytes_ = 0;
};

}  // namespace

bool register_decode_attention(const char* name, DecodeAttentionLaunch launch, const char* file) {
    return harness::register_variant({name, "decode_attention", "bf16", file, [launch] {
                                          return std::unique_ptr<harness::Problem>(new DecodeAttentionProblem(launch));
                                      }, harness::invoker_of(launch)});
}

}  // namespace roofline::decode_attention
