#include "check.cuh"
#include "decode_attention_api.cuh"
#include "kernels.cuh"

#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include <algorithm>
#include <cfloat>

namespace server {

namespace {

__device__ __forceinline__ std::uint64_t splitmix64(std::uint64_t z) {
    z += 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

__device__ __forceinline__ float warp_sum(float v) {
    for (int offset = 16; offset > 0; offset /= 2) v += __shfl_xor_sync(0xffffffffu, v, offset);
    return v;
}

__global__ void fill_uniform_kernel(bf16* data, std::size_t count, std::uint64_t seed, float scale, float offset) {
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < count;
         i += std::size_t(gridDim.x) * blockDim.x) {
        float u = float(splitmix64(seed * 0x100000001B3ull + i) >> 40) * (1.0f / 16777216.0f);  // [0, 1)
        data[i] = __float2bfloat16(offset + scale * (2.0f * u - 1.0f));
    }
}

__global__ void fill_uniform_fp8_kernel(std::uint8_t* data, std::size_t count, std::uint64_t seed, float scale,
                                        float inv_quant_scale) {
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < count;
         i += std::size_t(gridDim.x) * blockDim.x) {
        float u = float(splitmix64(seed * 0x100000001B3ull + i) >> 40) * (1.0f / 16777216.0f);  // as fill_uniform
        data[i] = fp8_e4m3(__bfloat162float(__float2bfloat16(scale * (2.0f * u - 1.0f))) * inv_quant_scale);
    }
}

__global__ void fill_value_kernel(float* data, std::size_t count, float value) {
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < count;
         i += std::size_t(gridDim.x) * blockDim.x)
        data[i] = value;
}

__global__ void fill_tokens_kernel(int* tokens, int batch, int vocab, std::uint64_t seed) {
    int b = threadIdx.x;
    if (b < batch) tokens[b] = int(splitmix64(seed ^ (0xA5A5ull << 32) ^ std::uint64_t(b)) % std::uint64_t(vocab));
}

__global__ void embed_kernel(const bf16* table, const int* tokens, bf16* x, int hidden) {
    const bf16* row = table + std::size_t(tokens[blockIdx.x]) * hidden;
    for (int i = threadIdx.x; i < hidden; i += blockDim.x) x[std::size_t(blockIdx.x) * hidden + i] = row[i];
}

// One block of 256 threads per row.
__global__ void rmsnorm_kernel(const bf16* x, const bf16* weight, bf16* y, int hidden) {
    const bf16* row = x + std::size_t(blockIdx.x) * hidden;
    float sum = 0;
    for (int i = threadIdx.x; i < hidden; i += blockDim.x) {
        float v = __bfloat162float(row[i]);
        sum += v * v;
    }
    __shared__ float partial[32];
    sum = warp_sum(sum);
    if (threadIdx.x % 32 == 0) partial[threadIdx.x / 32] = sum;
    __syncthreads();
    if (threadIdx.x < 32) {
        float v = threadIdx.x < blockDim.x / 32 ? partial[threadIdx.x] : 0.f;
        v = warp_sum(v);
        if (threadIdx.x == 0) partial[0] = v;
    }
    __syncthreads();
    float inv_rms = rsqrtf(partial[0] / hidden + kRmsEps);
    for (int i = threadIdx.x; i < hidden; i += blockDim.x)
        y[std::size_t(blockIdx.x) * hidden + i] =
            __float2bfloat16(__bfloat162float(row[i]) * inv_rms * __bfloat162float(weight[i]));
}

// grid (batch, q_heads + 2 kv_heads), head_dim / 2 threads: thread i rotates the pair (i, i + d/2).
// The cache: bf16 (k_cache, v_cache), or fp8 e4m3 (k_cache8, v_cache8: the value over its KV
// head's scale, saturated at +-448) when those are given.
__global__ void rope_and_append_kv_kernel(bf16* qkv, const int* positions, bf16* k_cache, bf16* v_cache,
                                          std::uint8_t* k_cache8, std::uint8_t* v_cache8, const float* k_scales,
                                          const float* v_scales, int q_heads, int kv_heads, int head_dim, int max_context) {
    int b = blockIdx.x, head = blockIdx.y, i = threadIdx.x, half = head_dim / 2;
    int pos = positions[b];
    bf16* vec = qkv + (std::size_t(b) * (q_heads + 2 * kv_heads) + head) * head_dim;
    float lo = __bfloat162float(vec[i]), hi = __bfloat162float(vec[i + half]);
    if (head < q_heads + kv_heads) {  // q or k: rotate
        float inv_freq = float(pow(kRopeTheta, -2.0 * i / head_dim));
        float s, c;
        sincosf(float(pos) * inv_freq, &s, &c);
        float rlo = lo * c - hi * s, rhi = hi * c + lo * s;
        lo = rlo;
        hi = rhi;
        vec[i] = __float2bfloat16(lo);
        vec[i + half] = __float2bfloat16(hi);
    }
    if (head >= q_heads) {
        bool is_k = head < q_heads + kv_heads;
        int kv = is_k ? head - q_heads : head - q_heads - kv_heads;
        std::size_t at = ((std::size_t(b) * kv_heads + kv) * max_context + pos) * head_dim;
        if (k_cache8) {  // what the cache stores is the bf16 value the step computed, then quantized
            float inv = 1.0f / (is_k ? k_scales[kv] : v_scales[kv]);
            std::uint8_t* cache = (is_k ? k_cache8 : v_cache8) + at;
            cache[i] = fp8_e4m3(__bfloat162float(__float2bfloat16(lo)) * inv);
            cache[i + half] = fp8_e4m3(__bfloat162float(__float2bfloat16(hi)) * inv);
        } else {
            bf16* cache = (is_k ? k_cache : v_cache) + at;
            cache[i] = __float2bfloat16(lo);
            cache[i + half] = __float2bfloat16(hi);
        }
    }
}

__global__ void residual_add_kernel(bf16* x, const bf16* y, std::size_t count) {
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < count;
         i += std::size_t(gridDim.x) * blockDim.x)
        x[i] = __float2bfloat16(__bfloat162float(x[i]) + __bfloat162float(y[i]));
}

__global__ void swiglu_kernel(const bf16* gate_up, bf16* out, int batch, int mlp) {
    std::size_t count = std::size_t(batch) * mlp;
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < count;
         i += std::size_t(gridDim.x) * blockDim.x) {
        std::size_t b = i / mlp, j = i % mlp;
        float g = __bfloat162float(gate_up[b * 2 * mlp + j]), u = __bfloat162float(gate_up[b * 2 * mlp + mlp + j]);
        out[i] = __float2bfloat16(g / (1.0f + __expf(-g)) * u);
    }
}

// One block of 1024 threads per row.
__global__ void argmax_kernel(const float* logits, int ld, int vocab, int* tokens) {
    const float* row = logits + std::size_t(blockIdx.x) * ld;
    float best = -FLT_MAX;
    int best_index = 0x7fffffff;
    for (int i = threadIdx.x; i < vocab; i += blockDim.x) {
        float v = row[i];
        if (v > best) best = v, best_index = i;  // strided walk: the first (smallest) index wins a tie
    }
    for (int offset = 16; offset > 0; offset /= 2) {
        float other = __shfl_xor_sync(0xffffffffu, best, offset);
        int other_index = __shfl_xor_sync(0xffffffffu, best_index, offset);
        if (other > best || (other == best && other_index < best_index)) best = other, best_index = other_index;
    }
    __shared__ float values[32];
    __shared__ int indices[32];
    if (threadIdx.x % 32 == 0) values[threadIdx.x / 32] = best, indices[threadIdx.x / 32] = best_index;
    __syncthreads();
    if (threadIdx.x == 0) {
        for (int w = 1; w < blockDim.x / 32; ++w)
            if (values[w] > best || (values[w] == best && indices[w] < best_index)) best = values[w], best_index = indices[w];
        tokens[blockIdx.x] = best_index == 0x7fffffff ? 0 : best_index;
    }
}

__global__ void advance_kernel(const int* tokens, int* positions, int* history, int* step, int batch) {
    int b = threadIdx.x;
    int s = *step;
    __syncthreads();  // every thread has read the step before thread 0 moves it
    if (b < batch) {
        history[std::size_t(s) * batch + b] = tokens[b];
        positions[b] += 1;
    }
    if (b == 0) *step = s + 1;
}

// The plain decode attention, in two kernels. The first: a block of 4 warps per (query head,
// sequence, chunk of kChunk positions); each warp takes every 4th group of 4 positions, loads their
// keys and values together (4 loads in flight, not 1) and keeps one online softmax in fp32; lane l
// holds dimensions 4l .. 4l+3 (head_dim 128). The block merges its warps and writes the chunk's
// (max, sum, 128 accumulators) to the workspace. The second merges the chunks.
// The cache: bf16, or e4m3 bytes (`kv_cache: fp8`) with a scale per KV head, the keys' folded
// into the query and the values' into the chunk's outputs.
constexpr int kAttnWarps = 4, kChunk = 64, kAttnRecord = 130;

// A lane's 4 dimensions of a cached row, as floats, and the raw load they come from (8 bytes of
// bf16, 4 of e4m3).
__device__ __forceinline__ uint2 load4(const bf16* at) { return *reinterpret_cast<const uint2*>(at); }
__device__ __forceinline__ unsigned load4(const std::uint8_t* at) { return *reinterpret_cast<const unsigned*>(at); }
__device__ __forceinline__ void widen4(const uint2& raw, float (&f)[4]) {
    const bf16* v = reinterpret_cast<const bf16*>(&raw);
    for (int j = 0; j < 4; ++j) f[j] = __bfloat162float(v[j]);
}
__device__ __forceinline__ void widen4(unsigned raw, float (&f)[4]) {
    for (int j = 0; j < 4; ++j) f[j] = from_fp8_e4m3(std::uint8_t(raw >> (8 * j)));
}

template <class Element>
__global__ void plain_attention_chunk_kernel(DecodeAttentionArgs a, const Element* k_cache, const Element* v_cache) {
    int head = blockIdx.x, b = blockIdx.y, chunk = blockIdx.z, lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    int length = a.positions[b] + 1;
    int chunks = (a.max_context + kChunk - 1) / kChunk;
    float* record = a.workspace + ((std::size_t(b) * a.q_heads + head) * chunks + chunk) * kAttnRecord;
    int first = chunk * kChunk;
    if (first >= length) return;  // past this sequence's end: the merge reads only its own chunks
    int last = min(first + kChunk, length);
    int kv = head / (a.q_heads / a.kv_heads);
    const bf16* q = a.q + std::size_t(b) * a.q_stride + std::size_t(head) * a.head_dim;
    std::size_t cache_offset = (std::size_t(b) * a.kv_heads + kv) * a.max_context * a.head_dim;
    const Element* keys = k_cache + cache_offset;
    const Element* values = v_cache + cache_offset;
    const float k_scale = a.k_scales ? a.k_scales[kv] : 1.f, v_scale = a.v_scales ? a.v_scales[kv] : 1.f;
    float qv[4], acc[4] = {0, 0, 0, 0};
    for (int j = 0; j < 4; ++j) qv[j] = __bfloat162float(q[4 * lane + j]) * a.scale * k_scale;
    float m = -FLT_MAX, l = 0;
    using Raw = decltype(load4(keys));
    for (int base = first + 4 * warp; base < last; base += 4 * kAttnWarps) {
        float s[4];
        Raw kraw[4], vraw[4];
        for (int u = 0; u < 4; ++u) {
            int p = min(base + u, last - 1);  // past the end: a repeat, weighted 0 below
            kraw[u] = load4(keys + std::size_t(p) * a.head_dim + 4 * lane);
            vraw[u] = load4(values + std::size_t(p) * a.head_dim + 4 * lane);
        }
        for (int u = 0; u < 4; ++u) {
            float k[4];
            widen4(kraw[u], k);
            float dot = 0;
            for (int j = 0; j < 4; ++j) dot += qv[j] * k[j];
            s[u] = warp_sum(dot);
        }
        for (int u = 0; u < 4; ++u) {
            if (base + u >= last) break;
            float v[4];
            widen4(vraw[u], v);
            float m_new = fmaxf(m, s[u]);
            float correction = __expf(m - m_new), weight = __expf(s[u] - m_new);
            l = l * correction + weight;
            for (int j = 0; j < 4; ++j) acc[j] = acc[j] * correction + weight * v[j];
            m = m_new;
        }
    }
    __shared__ float warp_m[kAttnWarps], warp_l[kAttnWarps], warp_acc[kAttnWarps][128];
    if (lane == 0) warp_m[warp] = m, warp_l[warp] = l;
    for (int j = 0; j < 4; ++j) warp_acc[warp][4 * lane + j] = acc[j];
    __syncthreads();
    float top = -FLT_MAX;
    for (int w = 0; w < kAttnWarps; ++w)
        if (warp_l[w] > 0) top = fmaxf(top, warp_m[w]);
    int d = threadIdx.x;  // 128 threads: one dimension each
    float total = 0, out = 0;
    for (int w = 0; w < kAttnWarps; ++w) {
        float f = warp_l[w] > 0 ? __expf(warp_m[w] - top) : 0.f;  // a warp with no position adds nothing
        total += warp_l[w] * f;
        out += warp_acc[w][d] * f;
    }
    record[2 + d] = out * v_scale;
    if (d == 0) record[0] = top, record[1] = total;
}

__global__ void plain_attention_merge_kernel(DecodeAttentionArgs a) {
    int head = blockIdx.x, b = blockIdx.y, d = threadIdx.x;
    int length = a.positions[b] + 1;
    int chunks = (a.max_context + kChunk - 1) / kChunk, used = (length + kChunk - 1) / kChunk;
    const float* records = a.workspace + (std::size_t(b) * a.q_heads + head) * chunks * kAttnRecord;
    float top = -FLT_MAX;
    for (int c = 0; c < used; ++c) top = fmaxf(top, records[c * kAttnRecord]);
    float total = 0, out = 0;
    for (int c = 0; c < used; ++c) {
        float f = __expf(records[c * kAttnRecord] - top);
        total += records[c * kAttnRecord + 1] * f;
        out += records[c * kAttnRecord + 2 + d] * f;
    }
    a.out[(std::size_t(b) * a.q_heads + head) * a.head_dim + d] = __float2bfloat16(out / total);
}

// The CUDA-core GEMM: a 128 (m) x 32 (n) tile per block of 256 threads, 4 x 4 outputs per thread,
// k in steps of 32 through shared memory, all in fp32.
constexpr int kBM = 128, kBN = 32, kBK = 32;
__global__ void portable_gemm_kernel(const bf16* w, int ldw, const bf16* x, int ldx, bf16* y_bf16, float* y_f32,
                                     int ldy, int m, int n, int k) {
    __shared__ float ws[kBK][kBM + 4];
    __shared__ float xs[kBK][kBN + 4];
    int t = threadIdx.x, tx = t % 32, ty = t / 32;
    int m0 = blockIdx.x * kBM, n0 = blockIdx.y * kBN;
    float acc[4][4] = {};
    for (int k0 = 0; k0 < k; k0 += kBK) {
        for (int i = 0; i < kBM * kBK / 256; ++i) {
            int idx = t + 256 * i, row = idx / kBK, kk = idx % kBK;
            bool inside = m0 + row < m && k0 + kk < k;
            ws[kk][row] = inside ? __bfloat162float(w[std::size_t(m0 + row) * ldw + k0 + kk]) : 0.f;
        }
        for (int i = 0; i < kBN * kBK / 256; ++i) {
            int idx = t + 256 * i, row = idx / kBK, kk = idx % kBK;
            bool inside = n0 + row < n && k0 + kk < k;
            xs[kk][row] = inside ? __bfloat162float(x[std::size_t(n0 + row) * ldx + k0 + kk]) : 0.f;
        }
        __syncthreads();
        for (int kk = 0; kk < kBK; ++kk) {
            float a[4], bv[4];
            for (int i = 0; i < 4; ++i) a[i] = ws[kk][tx * 4 + i];
            for (int j = 0; j < 4; ++j) bv[j] = xs[kk][ty * 4 + j];
            for (int i = 0; i < 4; ++i)
                for (int j = 0; j < 4; ++j) acc[i][j] += a[i] * bv[j];
        }
        __syncthreads();
    }
    for (int j = 0; j < 4; ++j) {
        int row = n0 + ty * 4 + j;
        if (row >= n) continue;
        for (int i = 0; i < 4; ++i) {
            int col = m0 + tx * 4 + i;
            if (col >= m) continue;
            if (y_f32) y_f32[std::size_t(row) * ldy + col] = acc[i][j];
            else y_bf16[std::size_t(row) * ldy + col] = __float2bfloat16(acc[i][j]);
        }
    }
}

int grid_for(std::size_t count, int threads) {
    std::size_t blocks = (count + threads - 1) / threads;
    return int(blocks < 132 * 16 ? (blocks > 0 ? blocks : 1) : 132 * 16);
}

}  // namespace

void fill_uniform(bf16* data, std::size_t count, std::uint64_t seed, float scale, float offset, cudaStream_t stream) {
    fill_uniform_kernel<<<132 * 16, 256, 0, stream>>>(data, count, seed, scale, offset);
}

void fill_uniform_fp8(std::uint8_t* data, std::size_t count, std::uint64_t seed, float scale, float quant_scale,
                      cudaStream_t stream) {
    fill_uniform_fp8_kernel<<<132 * 16, 256, 0, stream>>>(data, count, seed, scale, 1.0f / quant_scale);
}

void fill_value(float* data, std::size_t count, float value, cudaStream_t stream) {
    fill_value_kernel<<<grid_for(count, 256), 256, 0, stream>>>(data, count, value);
}

void fill_tokens(int* tokens, int batch, int vocab, std::uint64_t seed, cudaStream_t stream) {
    fill_tokens_kernel<<<1, 64, 0, stream>>>(tokens, batch, vocab, seed);
}

void embed(const bf16* table, const int* tokens, bf16* x, int batch, int hidden, cudaStream_t stream) {
    embed_kernel<<<batch, 256, 0, stream>>>(table, tokens, x, hidden);
}

void rmsnorm(const bf16* x, const bf16* weight, bf16* y, int batch, int hidden, cudaStream_t stream) {
    rmsnorm_kernel<<<batch, 256, 0, stream>>>(x, weight, y, hidden);
}

void rope_and_append_kv(bf16* qkv, const int* positions, bf16* k_cache, bf16* v_cache, int batch, int q_heads,
                        int kv_heads, int head_dim, int max_context, cudaStream_t stream) {
    rope_and_append_kv_kernel<<<dim3(batch, q_heads + 2 * kv_heads), head_dim / 2, 0, stream>>>(
        qkv, positions, k_cache, v_cache, nullptr, nullptr, nullptr, nullptr, q_heads, kv_heads, head_dim, max_context);
}

void rope_and_append_kv_fp8(bf16* qkv, const int* positions, std::uint8_t* k_cache, std::uint8_t* v_cache,
                            const float* k_scales, const float* v_scales, int batch, int q_heads, int kv_heads,
                            int head_dim, int max_context, cudaStream_t stream) {
    rope_and_append_kv_kernel<<<dim3(batch, q_heads + 2 * kv_heads), head_dim / 2, 0, stream>>>(
        qkv, positions, nullptr, nullptr, k_cache, v_cache, k_scales, v_scales, q_heads, kv_heads, head_dim, max_context);
}

void residual_add(bf16* x, const bf16* y, int batch, int hidden, cudaStream_t stream) {
    std::size_t count = std::size_t(batch) * hidden;
    residual_add_kernel<<<grid_for(count, 256), 256, 0, stream>>>(x, y, count);
}

void swiglu(const bf16* gate_up, bf16* out, int batch, int mlp, cudaStream_t stream) {
    swiglu_kernel<<<grid_for(std::size_t(batch) * mlp, 256), 256, 0, stream>>>(gate_up, out, batch, mlp);
}

void argmax(const float* logits, int ld, int vocab, int* tokens, int batch, cudaStream_t stream) {
    argmax_kernel<<<batch, 1024, 0, stream>>>(logits, ld, vocab, tokens);
}

void advance(const int* tokens, int* positions, int* history, int* step, int batch, cudaStream_t stream) {
    advance_kernel<<<1, 64, 0, stream>>>(tokens, positions, history, step, batch);
}

void plain_decode_attention(const DecodeAttentionArgs& args, cudaStream_t stream) {
    // Lanes hold 4 dimensions each and the merge one per thread: head_dim 128, the server's.
    int chunks = (args.longest + kChunk - 1) / kChunk;
    dim3 grid(args.q_heads, args.batch, chunks);
    if (args.k_cache_fp8)
        plain_attention_chunk_kernel<<<grid, 32 * kAttnWarps, 0, stream>>>(args, args.k_cache_fp8, args.v_cache_fp8);
    else
        plain_attention_chunk_kernel<<<grid, 32 * kAttnWarps, 0, stream>>>(args, args.k_cache, args.v_cache);
    plain_attention_merge_kernel<<<dim3(args.q_heads, args.batch), 128, 0, stream>>>(args);
}

void portable_gemm(const bf16* w, int ldw, const bf16* x, int ldx, bf16* y_bf16, float* y_f32, int ldy, int m, int n,
                   int k, cudaStream_t stream) {
    dim3 grid((m + kBM - 1) / kBM, (n + kBN - 1) / kBN);
    portable_gemm_kernel<<<grid, 256, 0, stream>>>(w, ldw, x, ldx, y_bf16, y_f32, ldy, m, n, k);
}

}  // namespace server
