// Given code for lab 09's decoder-layer step (decode_layer.cuh has the arithmetic): the layer
// as a serving stack without fusion runs it, one small kernel per step, 13 launches:
//
//    1 rmsnorm            x -> a                       one block
//    2 gemv               a -> q, k, v                 W_qkv, one warp per row
//    3 rope               q, k rotated in place        one thread per pair
//    4 attention_scores   q . k_p / sqrt(128)          one warp per (head, position)
//    5 softmax            scores -> weights; zeroes o  one block per head
//    6 attention_values   o += weights . V             a block per (head, 64 positions), atomics
//    7 gemv               o -> W_o o                   one warp per row
//    8 add                h = x + W_o o
//    9 rmsnorm            h -> b
//   10 gemv               b -> g, u                    W_gate_up
//   11 silu_mul           silu(g) * u
//   12 gemv               -> W_down (silu(g) u)
//   13 add                y = h + W_down (...) in bf16
//
//     roofline::gemv::steps::launch_decode_layer_steps(layer, stream);
//
// Every intermediate is fp32 in layer.scratch, at the offsets of ScratchLayout. The GEMVs
// read their input vector in fp32 and W in 16-byte pieces when K is a multiple of 8 (a scalar
// loop otherwise), like rung 1's. The kernels and the launcher have internal linkage (an
// unnamed namespace): each kernel file that includes this header gets its own copy.
#pragma once

#include "roofline/contract/decode_layer.cuh"

#include <cstdint>

namespace roofline::gemv::steps {

namespace {

constexpr int kWarpsPerBlock = 8;
constexpr int kValuesChunk = 64;  // positions per block of attention_values

// Where each intermediate lives in layer.scratch (floats; each starts 256-byte aligned).
struct ScratchLayout {
    std::size_t a, qkv, scores, o, h, b, gate_up, act, down;
    __host__ __device__ static constexpr std::size_t round_up(std::size_t n) { return (n + 63) / 64 * 64; }
    __host__ __device__ explicit ScratchLayout(const DecodeLayer& l) {
        const std::size_t H = round_up(l.hidden), F = round_up(l.ffn);
        a = 0;
        qkv = a + H;
        scores = qkv + 3 * H;
        o = scores + round_up(std::size_t(l.heads) * (l.cache + 1));
        h = o + H;
        b = h + H;
        gate_up = b + H;
        act = gate_up + 2 * F;
        down = act + F;
    }
};

__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
    for (int offset = 16; offset > 0; offset /= 2) v += __shfl_xor_sync(0xffffffffu, v, offset);
    return v;
}

__device__ __forceinline__ float warp_max(float v) {
#pragma unroll
    for (int offset = 16; offset > 0; offset /= 2) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, offset));
    return v;
}

// The sum over the block (blockDim.x a multiple of 32, at most 1024), returned to every thread.
__device__ float block_sum(float v) {
    __shared__ float partial[32];
    v = warp_sum(v);
    if (threadIdx.x % 32 == 0) partial[threadIdx.x / 32] = v;
    __syncthreads();
    float total = 0;
    for (int w = 0; w < int(blockDim.x / 32); ++w) total += partial[w];
    __syncthreads();
    return total;
}

__device__ __forceinline__ float to_float(float v) { return v; }
__device__ __forceinline__ float to_float(__nv_bfloat16 v) { return __bfloat162float(v); }

// One block: out = in / sqrt(mean(in^2) + eps) * gamma.
template <class In>
__global__ void rmsnorm_kernel(const In* in, const __nv_bfloat16* gamma, float* out, int n) {
    float squares = 0;
    for (int i = threadIdx.x; i < n; i += blockDim.x) squares += to_float(in[i]) * to_float(in[i]);
    const float scale = rsqrtf(block_sum(squares) / n + kRmsEpsilon);
    for (int i = threadIdx.x; i < n; i += blockDim.x) out[i] = to_float(in[i]) * scale * __bfloat162float(gamma[i]);
}

// out[r] = W[r, :] . in, one warp per row; in is fp32, 16-byte aligned.
__global__ __launch_bounds__(kWarpsPerBlock * 32) void gemv_kernel(const __nv_bfloat16* __restrict__ W,
                                                                   const float* __restrict__ in,
                                                                   float* __restrict__ out, int N, int K) {
    const int lane = threadIdx.x % 32, row = blockIdx.x * kWarpsPerBlock + threadIdx.x / 32;
    if (row >= N) return;
    const __nv_bfloat16* w = W + std::size_t(row) * K;
    float acc = 0;
    if (K % 8 == 0) {
        const auto* w8 = reinterpret_cast<const uint4*>(w);
        const auto* in4 = reinterpret_cast<const float4*>(in);
        for (int v = lane; v < K / 8; v += 32) {
            const uint4 pw = w8[v];
            const float4 lo = in4[2 * v], hi = in4[2 * v + 1];
            const __nv_bfloat162* p = reinterpret_cast<const __nv_bfloat162*>(&pw);
            const float2 w0 = __bfloat1622float2(p[0]), w1 = __bfloat1622float2(p[1]);
            const float2 w2 = __bfloat1622float2(p[2]), w3 = __bfloat1622float2(p[3]);
            acc = fmaf(w0.x, lo.x, fmaf(w0.y, lo.y, fmaf(w1.x, lo.z, fmaf(w1.y, lo.w, acc))));
            acc = fmaf(w2.x, hi.x, fmaf(w2.y, hi.y, fmaf(w3.x, hi.z, fmaf(w3.y, hi.w, acc))));
        }
    } else {
        for (int k = lane; k < K; k += 32) acc = fmaf(__bfloat162float(w[k]), in[k], acc);
    }
    acc = warp_sum(acc);
    if (lane == 0) out[row] = acc;
}

// q and k (the first 2 hidden values of qkv) rotated at `position`: one thread per pair.
__global__ void rope_kernel(float* qkv, int heads, int position) {
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= 2 * heads * (kHeadDim / 2)) return;
    const int i = t % (kHeadDim / 2);
    float* u = qkv + std::size_t(t / (kHeadDim / 2)) * kHeadDim;
    float s, c;
    sincosf(position * powf(kRopeBase, -float(i) / (kHeadDim / 2)), &s, &c);
    const float lo = u[i], hi = u[i + kHeadDim / 2];
    u[i] = lo * c - hi * s;
    u[i + kHeadDim / 2] = hi * c + lo * s;
}

// scores[head][p] = q_head . k_p / sqrt(128) for p <= cache (p = cache: the new k), one warp each.
__global__ void attention_scores_kernel(const float* qkv, const __nv_bfloat16* k_cache, float* scores, int hidden,
                                        int heads, int cache) {
    const int lane = threadIdx.x % 32;
    const long long item = (long long)blockIdx.x * kWarpsPerBlock + threadIdx.x / 32;
    const int positions = cache + 1;
    if (item >= (long long)heads * positions) return;
    const int head = int(item / positions), p = int(item % positions);
    const float* q = qkv + std::size_t(head) * kHeadDim;
    float acc = 0;
    for (int d = lane; d < kHeadDim; d += 32) {
        const float k = p < cache ? __bfloat162float(k_cache[(std::size_t(head) * cache + p) * kHeadDim + d])
                                  : qkv[hidden + std::size_t(head) * kHeadDim + d];
        acc = fmaf(q[d], k, acc);
    }
    acc = warp_sum(acc);
    if (lane == 0) scores[item] = acc * rsqrtf(float(kHeadDim));
}

// One block per head: scores -> softmax weights in place; zeroes the head's output for the
// atomics of attention_values.
__global__ void softmax_kernel(float* scores, float* o, int positions) {
    float* s = scores + std::size_t(blockIdx.x) * positions;
    float local = -INFINITY;
    for (int p = threadIdx.x; p < positions; p += blockDim.x) local = fmaxf(local, s[p]);
    __shared__ float partial[32];
    local = warp_max(local);
    if (threadIdx.x % 32 == 0) partial[threadIdx.x / 32] = local;
    __syncthreads();
    float max_score = -INFINITY;
    for (int w = 0; w < int(blockDim.x / 32); ++w) max_score = fmaxf(max_score, partial[w]);
    __syncthreads();
    float sum = 0;
    for (int p = threadIdx.x; p < positions; p += blockDim.x) sum += __expf(s[p] - max_score);
    const float inverse = 1.0f / block_sum(sum);
    for (int p = threadIdx.x; p < positions; p += blockDim.x) s[p] = __expf(s[p] - max_score) * inverse;
    for (int d = threadIdx.x; d < kHeadDim; d += blockDim.x) o[std::size_t(blockIdx.x) * kHeadDim + d] = 0;
}

// Block (chunk, head), kHeadDim threads: o[head][d] += sum over its positions of weight_p v_p[d].
__global__ __launch_bounds__(kHeadDim) void attention_values_kernel(const float* weights, const float* qkv,
                                                                   const __nv_bfloat16* v_cache, float* o, int hidden,
                                                                   int cache) {
    const int head = blockIdx.y, d = threadIdx.x, positions = cache + 1;
    const int first = blockIdx.x * kValuesChunk, last = min(first + kValuesChunk, positions);
    const float* w = weights + std::size_t(head) * positions;
    float acc = 0;
    for (int p = first; p < last; ++p) {
        const float v = p < cache ? __bfloat162float(v_cache[(std::size_t(head) * cache + p) * kHeadDim + d])
                                  : qkv[2 * std::size_t(hidden) + std::size_t(head) * kHeadDim + d];
        acc = fmaf(w[p], v, acc);
    }
    atomicAdd(o + std::size_t(head) * kHeadDim + d, acc);
}

template <class A, class Out>
__global__ void add_kernel(const A* a, const float* b, Out* out, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        const float sum = to_float(a[i]) + b[i];
        if constexpr (sizeof(Out) == 2) out[i] = __float2bfloat16(sum);
        else out[i] = sum;
    }
}

// gate_up holds g (ffn values) then u: act = silu(g) * u.
__global__ void silu_mul_kernel(const float* gate_up, float* act, int ffn) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < ffn; i += gridDim.x * blockDim.x) {
        const float g = gate_up[i];
        act[i] = g / (1.0f + __expf(-g)) * gate_up[ffn + i];
    }
}

inline int blocks_for(long long threads, int per_block) { return int((threads + per_block - 1) / per_block); }

// The 13 launches, in order, on `stream`.
inline void launch_decode_layer_steps(const DecodeLayer& l, cudaStream_t stream) {
    const ScratchLayout at(l);
    float* s = l.scratch;
    const int H = l.hidden, F = l.ffn, positions = l.cache + 1;
    auto gemv = [&](const __nv_bfloat16* W, const float* in, float* out, int N, int K) {
        gemv_kernel<<<blocks_for(N, kWarpsPerBlock), kWarpsPerBlock * 32, 0, stream>>>(W, in, out, N, K);
    };
    rmsnorm_kernel<<<1, 1024, 0, stream>>>(l.x, l.attn_norm, s + at.a, H);
    gemv(l.w_qkv, s + at.a, s + at.qkv, 3 * H, H);
    rope_kernel<<<blocks_for(H, 256), 256, 0, stream>>>(s + at.qkv, l.heads, l.cache);
    attention_scores_kernel<<<blocks_for((long long)l.heads * positions, kWarpsPerBlock), kWarpsPerBlock * 32, 0,
                              stream>>>(s + at.qkv, l.k_cache, s + at.scores, H, l.heads, l.cache);
    softmax_kernel<<<l.heads, 1024, 0, stream>>>(s + at.scores, s + at.o, positions);
    attention_values_kernel<<<dim3(blocks_for(positions, kValuesChunk), l.heads), kHeadDim, 0, stream>>>(
        s + at.scores, s + at.qkv, l.v_cache, s + at.o, H, l.cache);
    gemv(l.w_o, s + at.o, s + at.down, H, H);  // W_o o, in the slot W_down's output uses later
    add_kernel<<<blocks_for(H, 256), 256, 0, stream>>>(l.x, s + at.down, s + at.h, H);
    rmsnorm_kernel<<<1, 1024, 0, stream>>>(s + at.h, l.mlp_norm, s + at.b, H);
    gemv(l.w_gate_up, s + at.b, s + at.gate_up, 2 * F, H);
    silu_mul_kernel<<<blocks_for(F, 256), 256, 0, stream>>>(s + at.gate_up, s + at.act, F);
    gemv(l.w_down, s + at.act, s + at.down, H, F);
    add_kernel<<<blocks_for(H, 256), 256, 0, stream>>>(s + at.h, s + at.down, l.y, H);
}

}  // namespace

}  // namespace roofline::gemv::steps
