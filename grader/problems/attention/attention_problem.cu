// Inputs, trusted reference and peer for lab 08's attention (attention.cuh).
//
// Inputs: Q and K uniform in [-3, 3), V uniform in [-1, 1). A score q.k / sqrt(d) is then a
//   sum of d products of variance (3^2/3)^2 = 9, scaled by 1/sqrt(d): a standard deviation of
//   3 at any head_dim, so each row's softmax is peaked (its largest few weights carry most of
//   it) and a mistake in the max, the rescaling or the mask moves the output visibly. (Inputs
//   in [-1, 1) would give scores of deviation 1/3 and a nearly flat softmax, under which
//   attention is close to the mean of V whatever the kernel gets wrong.)
// Reference, in fp32 all the way, a group of heads at a time so that its scratch stays
//   under 1 GiB:
//   1. S = Q K^T: cuBLAS GemmStridedBatchedEx, bf16 in, fp32 compute and fp32 out (the
//      products of bf16 values are exact in fp32);
//   2. P = softmax(S * scale) row by row, masked keys (j > i when causal) given weight 0:
//      one block per row, the row's max and sum reduced in fp32;
//   3. O = P V: cuBLAS SGEMM (strided, batched; fp32, no TF32) with V widened to fp32.
//   The variant's bf16 O is compared with that fp32 O.
// Peer: cuDNN's fused attention (cudnn_sdpa.hpp). Its output is checked against the same
//   reference with the same tolerance once per process, at the first shape where cuDNN
//   offers an engine and the variant passes, so that the yardstick is known to do the job.
#include "roofline/contract/attention.cuh"
#include "cudnn_sdpa.hpp"

#include "../../harness/registry.hpp"
#include "../gemm/cublas_check.hpp"
#include "ops.hpp"

#include <cublas_v2.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <stdexcept>
#include <string>

namespace roofline::attention {

namespace {

using harness::DeviceArray;
using harness::Shape;

constexpr std::size_t kReferenceScoreFloats = std::size_t(1) << 28;  // 1 GiB of fp32 scores per group of heads

// Row `blockIdx.x` of the scores of one head group, in place: s -> softmax(s * scale).
__global__ void softmax_rows_reference(float* scores, int seq, float scale, bool causal) {
    __shared__ float partial[256];
    float* row = scores + std::size_t(blockIdx.x) * seq;
    const int query = blockIdx.x % seq;
    const int visible = causal ? query + 1 : seq;  // keys 0 .. visible-1
    float row_max = -INFINITY;
    for (int j = threadIdx.x; j < visible; j += blockDim.x) row_max = fmaxf(row_max, row[j] * scale);
    partial[threadIdx.x] = row_max;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
        if (threadIdx.x < stride) partial[threadIdx.x] = fmaxf(partial[threadIdx.x], partial[threadIdx.x + stride]);
        __syncthreads();
    }
    row_max = partial[0];
    __syncthreads();
    float sum = 0;
    for (int j = threadIdx.x; j < visible; j += blockDim.x) sum += expf(row[j] * scale - row_max);
    partial[threadIdx.x] = sum;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
        if (threadIdx.x < stride) partial[threadIdx.x] += partial[threadIdx.x + stride];
        __syncthreads();
    }
    sum = partial[0];
    for (int j = threadIdx.x; j < seq; j += blockDim.x) row[j] = j < visible ? expf(row[j] * scale - row_max) / sum : 0.0f;
}

__global__ void widen_to_fp32(const __nv_bfloat16* in, float* out, std::size_t count) {
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < count;
         i += std::size_t(gridDim.x) * blockDim.x) {
        out[i] = __bfloat162float(in[i]);
    }
}

class AttentionProblem final : public harness::Problem {
public:
    AttentionProblem(AttentionLaunch launch, bool causal) : launch_(launch), causal_(causal) {}
    AttentionProblem(AttentionScoresLaunch launch, bool causal) : scores_launch_(launch), causal_(causal) {}

    ~AttentionProblem() override {  // no throwing from a destructor
        if (blas_ != nullptr) cublasDestroy(blas_);
    }
    AttentionProblem(const AttentionProblem&) = delete;
    AttentionProblem& operator=(const AttentionProblem&) = delete;

    void setup(const Shape& shape) override {
        auto [batch, heads, seq, head_dim] = harness::shape_sizes(
            shape, ops::sizes, "attention shapes (Q, K, V, O [batch, heads, seq, head_dim])");
        if (head_dim != 64 && head_dim != 128)
            throw std::invalid_argument("attention takes head_dim 64 or 128 (got " + std::to_string(head_dim) + ")");
        if (batch * heads * seq * head_dim > INT_MAX)
            throw std::invalid_argument("shape too large: Q, K, V and O must each hold fewer than 2^31 elements");
        batch_ = int(batch), heads_ = int(heads), seq_ = int(seq), head_dim_ = int(head_dim);
        const std::size_t elements = std::size_t(batch) * heads * seq * head_dim;
        const std::size_t score_floats = std::size_t(batch) * heads * seq * seq;
        if (scores_launch_) {
            std::size_t free_bytes = 0, total_bytes = 0;
            CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
            if (score_floats * sizeof(float) > free_bytes / 2) {
                throw std::invalid_argument("the score matrix (" + std::to_string(score_floats * 4 >> 20) +
                                            " MiB of fp32) would take more than half of the GPU's free memory; "
                                            "give this variant a smaller batch, heads or seq");
            }
        }
        q_ = DeviceArray<__nv_bfloat16>(elements);
        k_ = DeviceArray<__nv_bfloat16>(elements);
        v_ = DeviceArray<__nv_bfloat16>(elements);
        o_ = DeviceArray<__nv_bfloat16>(elements, /*guarded=*/true);
        scores_ = scores_launch_ ? DeviceArray<float>(score_floats) : DeviceArray<float>();
        reference_ = DeviceArray<float>(elements);
        v_fp32_ = DeviceArray<float>(elements);
        const std::size_t per_head = std::size_t(seq) * seq;
        heads_per_group_ = int(std::clamp<std::size_t>(kReferenceScoreFloats / per_head, 1, std::size_t(batch) * heads));
        reference_scores_ = DeviceArray<float>(per_head * heads_per_group_);
        if (blas_ == nullptr) CUBLAS_CHECK(cublasCreate(&blas_));
        peer_planned_for_shape_ = false;  // planned when first needed: cuDNN may compile an engine
    }

    void fill_inputs(std::uint64_t seed, cudaStream_t stream) override {
        harness::fill_random(q_.data(), q_.size(), seed, -3.0f, 3.0f, stream);
        harness::fill_random(k_.data(), k_.size(), seed ^ 0x9E3779B97F4A7C15ull, -3.0f, 3.0f, stream);
        harness::fill_random(v_.data(), v_.size(), seed ^ 0xC2B2AE3D27D4EB4Full, -1.0f, 1.0f, stream);
    }

    void poison_outputs(cudaStream_t stream) override {
        harness::poison(o_.data(), o_.size(), stream);
        o_.storage().arm_guards(stream);
    }

    void launch_variant(cudaStream_t stream) override {
        if (scores_launch_) {
            scores_launch_(q_.data(), k_.data(), v_.data(), o_.data(), scores_.data(), batch_, heads_, seq_, head_dim_,
                           causal_, stream);
        } else {
            launch_(q_.data(), k_.data(), v_.data(), o_.data(), batch_, heads_, seq_, head_dim_, causal_, stream);
        }
    }

    harness::VerifyReport verify(const harness::Tolerance& tolerance, cudaStream_t stream) override {
        auto report = harness::compare(o_.data(), reference_.data(), o_.size(), o_.storage(), tolerance, stream);
        if (report.passed && !peer_checked_ && plan_peer()) {
            launch_peer(stream);
            auto peer = harness::compare(o_.data(), reference_.data(), o_.size(), o_.storage(), tolerance, stream);
            if (!peer.passed) {
                throw std::runtime_error("the peer (" + peer_name() + ") disagrees with the reference at " +
                                         shape_words() + ": " + peer.verdict + "; it cannot be the yardstick");
            }
            peer_checked_ = true;
        }
        return report;
    }

    std::vector<harness::InputView> inputs() const override {
        return {harness::input_view("Q", q_), harness::input_view("K", k_), harness::input_view("V", v_)};
    }

    std::string peer_name() const override {
        return std::string("cuDNN fused attention (") + (causal_ ? "causal, " : "") + "bf16 in/out, fp32 softmax" +
               (peer_ ? "; " + peer_->describe() : "") + ")";
    }

    void launch_peer(cudaStream_t stream) override {
        if (!plan_peer()) {
            throw std::runtime_error("cuDNN offers no fused attention engine at " + shape_words() + ": " + peer_refusal_);
        }
        peer_->run(q_.data(), k_.data(), v_.data(), o_.data(), stream);
    }

private:
    // cuDNN's plan for the current shape, made once; false (and the reason kept) where it has none.
    bool plan_peer() {
        if (!peer_planned_for_shape_) {
            if (!peer_) peer_ = std::make_unique<CudnnSdpa>();
            peer_refusal_ = peer_->plan(batch_, heads_, seq_, head_dim_, causal_);
            peer_planned_for_shape_ = true;
        }
        return peer_refusal_.empty();
    }

    std::string shape_words() const {
        return "batch=" + std::to_string(batch_) + ", heads=" + std::to_string(heads_) + ", seq=" +
               std::to_string(seq_) + ", head_dim=" + std::to_string(head_dim_) + (causal_ ? ", causal" : "");
    }

    // O = softmax(Q K^T * scale) V in fp32, a group of heads at a time (see the top of the file).
    void compute_reference(cudaStream_t stream) override {
        CUBLAS_CHECK(cublasSetStream(blas_, stream));
        CUBLAS_CHECK(cublasSetMathMode(blas_, CUBLAS_DEFAULT_MATH));  // no TF32 in the SGEMM
        widen_to_fp32<<<1024, 256, 0, stream>>>(v_.data(), v_fp32_.data(), v_.size());
        CUDA_CHECK(cudaGetLastError());
        const int n = seq_, d = head_dim_;
        const long long head_elements = (long long)n * d, head_scores = (long long)n * n;
        const float one = 1.0f, zero = 0.0f;
        const int total_heads = batch_ * heads_;
        for (int first = 0; first < total_heads; first += heads_per_group_) {
            const int count = std::min(heads_per_group_, total_heads - first);
            const std::size_t offset = std::size_t(first) * head_elements;
            // Row-major S[i][j] is column-major S^T = K Q^T: K^T as op(A) over K's d x n column-major view.
            CUBLAS_CHECK(cublasGemmStridedBatchedEx(
                blas_, CUBLAS_OP_T, CUBLAS_OP_N, n, n, d, &one, k_.data() + offset, CUDA_R_16BF, d, head_elements,
                q_.data() + offset, CUDA_R_16BF, d, head_elements, &zero, reference_scores_.data(), CUDA_R_32F, n,
                head_scores, count, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
            softmax_rows_reference<<<count * n, 256, 0, stream>>>(reference_scores_.data(), n, softmax_scale(d),
                                                                  causal_);
            CUDA_CHECK(cudaGetLastError());
            // Row-major O = P V is column-major O^T = V^T P^T: V's d x n view times P's n x n view.
            CUBLAS_CHECK(cublasSgemmStridedBatched(blas_, CUBLAS_OP_N, CUBLAS_OP_N, d, n, n, &one,
                                                   v_fp32_.data() + offset, d, head_elements,
                                                   reference_scores_.data(), n, head_scores, &zero,
                                                   reference_.data() + offset, d, head_elements, count));
        }
    }

    AttentionLaunch launch_ = nullptr;
    AttentionScoresLaunch scores_launch_ = nullptr;
    bool causal_ = false;
    int batch_ = 0, heads_ = 0, seq_ = 0, head_dim_ = 0, heads_per_group_ = 1;
    DeviceArray<__nv_bfloat16> q_, k_, v_, o_;
    DeviceArray<float> scores_, reference_, reference_scores_, v_fp32_;
    cublasHandle_t blas_ = nullptr;
    std::unique_ptr<CudnnSdpa> peer_;
    std::string peer_refusal_;
    bool peer_planned_for_shape_ = false;
    bool peer_checked_ = false;
};

template <class Launch>
bool register_one(const char* name, Launch launch, bool causal, const char* file) {
    return harness::register_variant({name, causal ? ops::attention_causal : ops::attention, "bf16", file, [launch, causal] {
                                          return std::unique_ptr<harness::Problem>(new AttentionProblem(launch, causal));
                                      }, harness::invoker_of(launch)});
}

}  // namespace

bool register_attention(const char* name, AttentionLaunch launch, bool causal, const char* file) {
    return register_one(name, launch, causal, file);
}

bool register_attention(const char* name, AttentionScoresLaunch launch, bool causal, const char* file) {
    return register_one(name, launch, causal, file);
}

}  // namespace roofline::attention
