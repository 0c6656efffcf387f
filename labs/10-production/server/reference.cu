#include "check.cuh"
#include "reference.cuh"

#include <cfloat>
#include <cmath>
#include <vector>

namespace server {

namespace {

__device__ float block_sum(float v, float* shared) {  // blockDim.x a multiple of 32, at most 1024
    for (int o = 16; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffffu, v, o);
    __syncthreads();
    if (threadIdx.x % 32 == 0) shared[threadIdx.x / 32] = v;
    __syncthreads();
    float total = 0;
    for (int w = 0; w < blockDim.x / 32; ++w) total += shared[w];
    return total;
}

__device__ float block_max(float v, float* shared) {
    for (int o = 16; o > 0; o /= 2) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
    __syncthreads();
    if (threadIdx.x % 32 == 0) shared[threadIdx.x / 32] = v;
    __syncthreads();
    float top = -FLT_MAX;
    for (int w = 0; w < blockDim.x / 32; ++w) top = fmaxf(top, shared[w]);
    return top;
}

__global__ void ref_embed(const bf16* table, const int* tokens, float* x, int hidden) {
    for (int i = threadIdx.x; i < hidden; i += blockDim.x)
        x[std::size_t(blockIdx.x) * hidden + i] = __bfloat162float(table[std::size_t(tokens[blockIdx.x]) * hidden + i]);
}

__global__ void ref_rmsnorm_to_bf16(const float* x, const bf16* weight, bf16* out, int hidden) {
    __shared__ float shared[32];
    const float* row = x + std::size_t(blockIdx.x) * hidden;
    float sum = 0;
    for (int i = threadIdx.x; i < hidden; i += blockDim.x) sum += row[i] * row[i];
    float inv_rms = float(1.0 / sqrt(double(block_sum(sum, shared)) / hidden + kRmsEps));
    for (int i = threadIdx.x; i < hidden; i += blockDim.x)
        out[std::size_t(blockIdx.x) * hidden + i] = __float2bfloat16(row[i] * inv_rms * __bfloat162float(weight[i]));
}

// kv_new: [batch][2][kv_heads][head_dim], the step's new K (RoPE'd) and V rounded as the cache stores them.
// With an fp8 cache (kv_scales non-null: this layer's [2][kv_heads]), "as the cache stores them" is
// the value rounded to e4m3 at its head's scale, kept here as bf16 of the dequantized value.
__global__ void ref_rope(float* qkv, const int* positions, bf16* kv_new, const float* kv_scales, int q_heads,
                         int kv_heads, int head_dim) {
    int b = blockIdx.x, head = blockIdx.y, i = threadIdx.x, half = head_dim / 2;
    float* vec = qkv + (std::size_t(b) * (q_heads + 2 * kv_heads) + head) * head_dim;
    double lo = vec[i], hi = vec[i + half];
    if (head < q_heads + kv_heads) {
        double angle = double(positions[b]) * pow(kRopeTheta, -2.0 * i / head_dim);
        double s = sin(angle), c = cos(angle);
        double rlo = lo * c - hi * s, rhi = hi * c + lo * s;
        lo = rlo, hi = rhi;
        vec[i] = float(lo);
        vec[i + half] = float(hi);
    }
    if (head >= q_heads) {
        int which = head < q_heads + kv_heads ? 0 : 1, kv = head - q_heads - which * kv_heads;
        bf16* dst = kv_new + ((std::size_t(b) * 2 + which) * kv_heads + kv) * head_dim;
        if (kv_scales) {
            float scale = kv_scales[which * kv_heads + kv];
            dst[i] = __float2bfloat16(from_fp8_e4m3(fp8_e4m3(float(lo) / scale)) * scale);
            dst[i + half] = __float2bfloat16(from_fp8_e4m3(fp8_e4m3(float(hi) / scale)) * scale);
        } else {
            dst[i] = __float2bfloat16(float(lo));
            dst[i + half] = __float2bfloat16(float(hi));
        }
    }
}

// A cached element as a float: bf16, or fp8 e4m3 times its head's scale.
__device__ __forceinline__ float cached(const bf16* row, int j, float) { return __bfloat162float(row[j]); }
__device__ __forceinline__ float cached(const std::uint8_t* row, int j, float scale) { return from_fp8_e4m3(row[j]) * scale; }
__device__ __forceinline__ float cached(const bf16* row, int j) { return __bfloat162float(row[j]); }

// One block of 128 threads per (query head, sequence). Positions before positions[b] come from the
// cache; position positions[b] from kv_new (the reference's own new K and V). Three passes: the
// scores into `scores`, their max and sum, then the weighted values (thread t: dimension t).
template <class Cache>
__global__ void ref_attention(const float* qkv, const Cache* k_cache, const Cache* v_cache, const bf16* kv_new,
                              const float* kv_scales, const int* positions, float* scores, float* out, int q_heads,
                              int kv_heads, int head_dim, int max_context) {
    __shared__ float shared[32];
    __shared__ float q[128];
    int head = blockIdx.x, b = blockIdx.y, kv = head / (q_heads / kv_heads), t = threadIdx.x;
    int pos = positions[b];
    float scale = float(1.0 / sqrt(double(head_dim)));
    q[t] = qkv[(std::size_t(b) * (q_heads + 2 * kv_heads) + head) * head_dim + t];
    __syncthreads();
    std::size_t cache = (std::size_t(b) * kv_heads + kv) * max_context * head_dim;
    const bf16* k_last = kv_new + ((std::size_t(b) * 2 + 0) * kv_heads + kv) * head_dim;
    const bf16* v_last = kv_new + ((std::size_t(b) * 2 + 1) * kv_heads + kv) * head_dim;
    float* my_scores = scores + (std::size_t(b) * q_heads + head) * max_context;
    const float k_scale = kv_scales ? kv_scales[kv] : 1.f, v_scale = kv_scales ? kv_scales[kv_heads + kv] : 1.f;
    float local_max = -FLT_MAX;
    for (int p = t; p <= pos; p += blockDim.x) {
        float s = 0;
        if (p < pos)
            for (int j = 0; j < head_dim; ++j) s += q[j] * cached(k_cache + cache + std::size_t(p) * head_dim, j, k_scale);
        else
            for (int j = 0; j < head_dim; ++j) s += q[j] * cached(k_last, j);
        s *= scale;
        my_scores[p] = s;
        local_max = fmaxf(local_max, s);
    }
    __syncthreads();
    float top = block_max(local_max, shared);
    float local_sum = 0;
    for (int p = t; p <= pos; p += blockDim.x) local_sum += expf(my_scores[p] - top);
    float total = block_sum(local_sum, shared);
    double acc = 0;
    for (int p = 0; p <= pos; ++p) {
        float v = p < pos ? cached(v_cache + cache + std::size_t(p) * head_dim, t, v_scale) : cached(v_last, t);
        acc += double(expf(my_scores[p] - top)) * v;
    }
    out[(std::size_t(b) * q_heads + head) * head_dim + t] = float(acc / total);
}

__global__ void ref_to_bf16(const float* in, bf16* out, std::size_t count) {
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < count; i += std::size_t(gridDim.x) * blockDim.x)
        out[i] = __float2bfloat16(in[i]);
}

__global__ void ref_residual(float* x, const float* y, std::size_t count) {
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < count; i += std::size_t(gridDim.x) * blockDim.x)
        x[i] += y[i];
}

__global__ void ref_swiglu_to_bf16(const float* gate_up, bf16* out, int batch, int mlp) {
    std::size_t count = std::size_t(batch) * mlp;
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < count; i += std::size_t(gridDim.x) * blockDim.x) {
        std::size_t b = i / mlp, j = i % mlp;
        double g = gate_up[b * 2 * mlp + j], u = gate_up[b * 2 * mlp + mlp + j];
        out[i] = __float2bfloat16(float(g / (1.0 + exp(-g)) * u));
    }
}

// Per row: the reference's top index, top value and second value, the sum of squares of the
// reference and of the difference. stats: [batch][5].
__global__ void ref_row_stats(const float* server, const float* reference, int ld, int vocab, float* stats) {
    __shared__ float shared[32];
    const float* s = server + std::size_t(blockIdx.x) * ld;
    const float* r = reference + std::size_t(blockIdx.x) * ld;
    float sq = 0, diff = 0, best = -FLT_MAX;
    for (int i = threadIdx.x; i < vocab; i += blockDim.x) {
        sq += r[i] * r[i];
        diff += (s[i] - r[i]) * (s[i] - r[i]);
        best = fmaxf(best, r[i]);
    }
    float top = block_max(best, shared);
    // The first index holding the top value, then the best value at any other index.
    int index = 0x7fffffff;
    for (int i = threadIdx.x; i < vocab; i += blockDim.x)
        if (r[i] == top && i < index) index = i;
    for (int o = 16; o > 0; o /= 2) index = min(index, __shfl_xor_sync(0xffffffffu, index, o));
    __shared__ int indices[32];
    __syncthreads();
    if (threadIdx.x % 32 == 0) indices[threadIdx.x / 32] = index;
    __syncthreads();
    for (int w = 0; w < blockDim.x / 32; ++w) index = min(index, indices[w]);
    float second = -FLT_MAX;
    for (int i = threadIdx.x; i < vocab; i += blockDim.x)
        if (i != index) second = fmaxf(second, r[i]);
    second = block_max(second, shared);
    float sum_sq = block_sum(sq, shared), sum_diff = block_sum(diff, shared);
    if (threadIdx.x == 0) {
        float* out = stats + blockIdx.x * 5;
        out[0] = float(index);
        out[1] = top;
        out[2] = second;
        out[3] = sum_sq;
        out[4] = sum_diff;
    }
}

// The K and V the server's step wrote at positions[b], against kv_new, every layer: sums[0] the
// squared differences, sums[1] the squares. grid (layers x batch x 2 x kv_heads), head_dim threads.
template <class Cache>
__global__ void ref_kv_diff(const Cache* k_cache, const Cache* v_cache, const float* kv_scales, const bf16* kv_new,
                            const int* positions, double* sums, int batch, int kv_heads, int head_dim, int max_context) {
    int id = blockIdx.x;
    int kv = id % kv_heads, which = (id / kv_heads) % 2, b = (id / (2 * kv_heads)) % batch, l = id / (2 * kv_heads * batch);
    std::size_t layer_cache = std::size_t(batch) * kv_heads * max_context * head_dim;
    const Cache* cache = (which == 0 ? k_cache : v_cache) + l * layer_cache +
                         ((std::size_t(b) * kv_heads + kv) * max_context + positions[b]) * head_dim;
    const float scale = kv_scales ? kv_scales[(std::size_t(l) * 2 + which) * kv_heads + kv] : 1.f;
    const bf16* mine = kv_new + std::size_t(l) * batch * 2 * kv_heads * head_dim +
                       ((std::size_t(b) * 2 + which) * kv_heads + kv) * head_dim;
    float s = cached(cache, threadIdx.x, scale), r = __bfloat162float(mine[threadIdx.x]);
    float diff = (s - r) * (s - r), square = r * r;
    for (int o = 16; o > 0; o /= 2) {
        diff += __shfl_xor_sync(0xffffffffu, diff, o);
        square += __shfl_xor_sync(0xffffffffu, square, o);
    }
    if (threadIdx.x % 32 == 0) {
        atomicAdd(&sums[0], double(diff));
        atomicAdd(&sums[1], double(square));
    }
}

int blocks(std::size_t count) { return int(std::min<std::size_t>((count + 255) / 256, 132 * 8)); }

}  // namespace

Reference::Reference(Server& server) : s_(server) {
    const auto& S = s_.shapes;
    std::size_t B = S.batch, H = S.hidden;
    CUBLAS_CHECK(cublasCreate(&handle_));
    CUBLAS_CHECK(cublasSetStream(handle_, s_.stream));
    CUDA_CHECK(cudaMalloc(&x_, B * H * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&qkv_, B * S.qkv_dim() * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&attn_, B * S.q_heads * S.head_dim * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&out_, B * H * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&gate_up_, B * 2 * S.mlp * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&logits_, B * S.vocab_rows * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&scores_, B * S.q_heads * S.max_context * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&row_stats_, B * 5 * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&gemm_in_, B * std::max<std::size_t>(H, S.mlp) * sizeof(bf16)));
    CUDA_CHECK(cudaMalloc(&kv_new_, S.layers * B * 2 * S.kv_heads * S.head_dim * sizeof(bf16)));
    CUDA_CHECK(cudaMalloc(&sums_, 2 * sizeof(double)));
    CUDA_CHECK(cudaMalloc(&tokens_, B * sizeof(int)));
    CUDA_CHECK(cudaMalloc(&positions_, B * sizeof(int)));
}

Reference::~Reference() {
    for (void* p : {static_cast<void*>(x_), static_cast<void*>(qkv_), static_cast<void*>(attn_), static_cast<void*>(out_),
                    static_cast<void*>(gate_up_), static_cast<void*>(logits_), static_cast<void*>(scores_),
                    static_cast<void*>(row_stats_), static_cast<void*>(gemm_in_), static_cast<void*>(kv_new_),
                    static_cast<void*>(sums_), static_cast<void*>(tokens_), static_cast<void*>(positions_)})
        cudaFree(p);
    cublasDestroy(handle_);
}

void Reference::save_inputs() {
    const auto B = std::size_t(s_.shapes.batch);
    CUDA_CHECK(cudaMemcpyAsync(tokens_, s_.tokens, B * sizeof(int), cudaMemcpyDeviceToDevice, s_.stream));
    CUDA_CHECK(cudaMemcpyAsync(positions_, s_.positions, B * sizeof(int), cudaMemcpyDeviceToDevice, s_.stream));
}

StepCheck Reference::check_step() {
    const auto& S = s_.shapes;
    const int B = S.batch, H = S.hidden, QD = S.q_heads * S.head_dim;
    cudaStream_t st = s_.stream;
    // y (m x B, fp32) = W (m x k, bf16) applied to the batch's bf16 rows.
    auto gemm = [&](const bf16* w, const bf16* x, float* y, int m, int k) {
        float alpha = 1, beta = 0;
        CUBLAS_CHECK(cublasGemmEx(handle_, CUBLAS_OP_T, CUBLAS_OP_N, m, B, k, &alpha, w, CUDA_R_16BF, k, x, CUDA_R_16BF, k,
                                  &beta, y, CUDA_R_32F, m, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
    };
    std::size_t layer_cache = s_.layer_cache_elements();
    std::size_t kv_new_layer = std::size_t(B) * 2 * S.kv_heads * S.head_dim;
    ref_embed<<<B, 256, 0, st>>>(s_.embedding, tokens_, x_, H);
    for (int l = 0; l < S.layers; ++l) {
        const auto& w = s_.layers[l];
        ref_rmsnorm_to_bf16<<<B, 256, 0, st>>>(x_, w.attn_norm, gemm_in_, H);
        gemm(w.wqkv, gemm_in_, qkv_, S.qkv_dim(), H);
        const float* scales = s_.fp8_kv ? s_.k_scales(l) : nullptr;  // [2][kv_heads]: keys, then values
        ref_rope<<<dim3(B, S.q_heads + 2 * S.kv_heads), S.head_dim / 2, 0, st>>>(qkv_, positions_, kv_new_ + l * kv_new_layer,
                                                                                scales, S.q_heads, S.kv_heads, S.head_dim);
        if (s_.fp8_kv)
            ref_attention<<<dim3(S.q_heads, B), S.head_dim, 0, st>>>(
                qkv_, s_.k_cache8 + l * layer_cache, s_.v_cache8 + l * layer_cache, kv_new_ + l * kv_new_layer, scales,
                positions_, scores_, attn_, S.q_heads, S.kv_heads, S.head_dim, S.max_context);
        else
            ref_attention<<<dim3(S.q_heads, B), S.head_dim, 0, st>>>(
                qkv_, s_.k_cache + l * layer_cache, s_.v_cache + l * layer_cache, kv_new_ + l * kv_new_layer, scales,
                positions_, scores_, attn_, S.q_heads, S.kv_heads, S.head_dim, S.max_context);
        ref_to_bf16<<<blocks(std::size_t(B) * QD), 256, 0, st>>>(attn_, gemm_in_, std::size_t(B) * QD);
        gemm(w.wo, gemm_in_, out_, H, QD);
        ref_residual<<<blocks(std::size_t(B) * H), 256, 0, st>>>(x_, out_, std::size_t(B) * H);
        ref_rmsnorm_to_bf16<<<B, 256, 0, st>>>(x_, w.mlp_norm, gemm_in_, H);
        gemm(w.gate_up, gemm_in_, gate_up_, 2 * S.mlp, H);
        ref_swiglu_to_bf16<<<blocks(std::size_t(B) * S.mlp), 256, 0, st>>>(gate_up_, gemm_in_, B, S.mlp);
        gemm(w.down, gemm_in_, out_, H, S.mlp);
        ref_residual<<<blocks(std::size_t(B) * H), 256, 0, st>>>(x_, out_, std::size_t(B) * H);
    }
    ref_rmsnorm_to_bf16<<<B, 256, 0, st>>>(x_, s_.final_norm, gemm_in_, H);
    gemm(s_.lm_head, gemm_in_, logits_, S.vocab_rows, H);

    ref_row_stats<<<B, 1024, 0, st>>>(s_.logits, logits_, S.vocab_rows, S.vocab, row_stats_);
    CUDA_CHECK(cudaMemsetAsync(sums_, 0, 2 * sizeof(double), st));
    if (s_.fp8_kv)
        ref_kv_diff<<<S.layers * B * 2 * S.kv_heads, S.head_dim, 0, st>>>(s_.k_cache8, s_.v_cache8, s_.kv_scales, kv_new_,
                                                                         positions_, sums_, B, S.kv_heads, S.head_dim,
                                                                         S.max_context);
    else
        ref_kv_diff<<<S.layers * B * 2 * S.kv_heads, S.head_dim, 0, st>>>(s_.k_cache, s_.v_cache, nullptr, kv_new_,
                                                                         positions_, sums_, B, S.kv_heads, S.head_dim,
                                                                         S.max_context);
    std::vector<float> stats(std::size_t(B) * 5);
    std::vector<int> server_tokens(B);
    double kv_sums[2];
    CUDA_CHECK(cudaMemcpyAsync(stats.data(), row_stats_, stats.size() * sizeof(float), cudaMemcpyDeviceToHost, st));
    CUDA_CHECK(cudaMemcpyAsync(server_tokens.data(), s_.tokens, B * sizeof(int), cudaMemcpyDeviceToHost, st));
    CUDA_CHECK(cudaMemcpyAsync(kv_sums, sums_, sizeof(kv_sums), cudaMemcpyDeviceToHost, st));
    CUDA_CHECK(cudaStreamSynchronize(st));
    CUDA_CHECK(cudaGetLastError());

    StepCheck out;
    out.kv_tolerance = s_.fp8_kv ? kFp8KvTolerance : kLogitTolerance;
    double sq = 0, diff = 0;
    for (int b = 0; b < B; ++b) {
        const float* row = &stats[std::size_t(b) * 5];
        sq += row[3];
        diff += row[4];
        double rms = std::sqrt(row[3] / S.vocab);
        bool clear = double(row[1]) - double(row[2]) > 2 * kLogitTolerance * rms;
        if (!clear) ++out.close_calls;
        else if (server_tokens[b] != int(row[0])) ++out.token_mismatches;
    }
    out.logits_rel_err = sq > 0 ? std::sqrt(diff / sq) : (diff > 0 ? INFINITY : 0);
    out.kv_rel_err = kv_sums[1] > 0 ? std::sqrt(kv_sums[0] / kv_sums[1]) : 0;
    if (!std::isfinite(out.logits_rel_err) || std::isnan(out.logits_rel_err)) out.logits_rel_err = INFINITY;
    return out;
}

}  // namespace server
