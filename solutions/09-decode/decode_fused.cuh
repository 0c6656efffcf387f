// The design of solutions/09-decode/kernels/07_decode_fused.cu, shared with the lab's open rung
// (kernels/08_open_decode.cu), which reuses it as our reference; each file registers it under its own name.
#pragma once
// Rung 7: the layer in 6 kernels instead of 13, replayed as a CUDA graph.
// The timeline of rung 6 shows what is left: 13 nodes, each a short kernel with an idle gap
// before it, and several of them (the norms, rotary, the adds, silu) moving a few KiB. Each
// of those goes into the GEMV next to it:
//
//   1 qkv:        rmsnorm folded into W_qkv's dot products (W (x g) / rms(x): each block sums
//                 x^2 itself, 8 KiB from L2), rotary applied on the way out: a warp owns the
//                 rows i and i + 64 of one head, the pair rotary mixes;
//   2 attention:  flash-decoding: block (split, head) scores, exponentiates and sums its own
//                 slice of the cache's positions, writing a running max, sum and 128 partial
//                 outputs; 3 combine: one block per head rescales and adds the slices;
//   4 out:        h = x + W_o o, the residual in the GEMV's store;
//   5 mlp up:     rmsnorm of h folded in as in 1; a warp owns gate row j and up row j and
//                 stores silu(g) u, so g and u never reach memory;
//   6 down:       y = h + W_down act, rounded to bf16 in the store.
//
// Prediction. hidden 512: 6 graph nodes of ~1-1.5 us with ~2 us of bytes: ~8-10 us, about
// 2x faster than rung 6. hidden 4096: still the bytes, ~112 us at the memory roof; the given
// attention (one warp per position, then a pass over V with atomics) and its extra passes
// over scores cost a few us that the split attention saves: ~5% faster than rung 6.
#include "roofline/contract/decode_layer.cuh"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <map>
#include <string>

// The helpers (given): the layer's constants, the scratch layout, warp and block sums, 8-wide
// loads, the rms and the dot products.
#include "given/decode_fused_helpers.cuh"

namespace {

using roofline::gemv::DecodeLayer;
using roofline::gemv::kHeadDim;
using roofline::gemv::kRmsEpsilon;
using roofline::gemv::kRopeBase;

// 1. q, k, v = W_qkv rmsnorm(x), q and k rotated. Warp unit u owns rows base + i and base + i + 64
// of one head (base: the section q, k or v, and the head).
__global__ __launch_bounds__(kWarps * 32) void qkv_kernel(DecodeLayer l, float* qkv) {
    const float r = inverse_rms(l.x, l.hidden);
    const int unit = blockIdx.x * kWarps + threadIdx.x / 32, half = l.hidden / 2;
    if (unit >= 3 * half) return;
    const int section = unit / half, head = (unit % half) / (kHeadDim / 2), i = unit % (kHeadDim / 2);
    const std::size_t row0 = std::size_t(section) * l.hidden + std::size_t(head) * kHeadDim + i,
                      row1 = row0 + kHeadDim / 2;
    float2 dots = dot_two_rows(l.w_qkv + row0 * l.hidden, l.w_qkv + row1 * l.hidden, l.x, l.attn_norm, l.hidden);
    float lo = dots.x * r, hi = dots.y * r;
    if (section < 2) {
        float s, c;
        sincosf(l.cache * powf(kRopeBase, -float(i) / (kHeadDim / 2)), &s, &c);
        const float rotated_lo = lo * c - hi * s;
        hi = hi * c + lo * s;
        lo = rotated_lo;
    }
    if (threadIdx.x % 32 == 0) qkv[row0] = lo, qkv[row1] = hi;
}

// 2. Block (split, head): its slice of positions (the last position is the new k and v).
__global__ __launch_bounds__(kAttentionThreads) void attention_partial_kernel(DecodeLayer l, const float* qkv,
                                                                            float* partial, int chunk) {
    extern __shared__ float weights[];  // [chunk]
    __shared__ float q[kHeadDim];
    const int split = blockIdx.x, head = blockIdx.y, splits = gridDim.x, positions = l.cache + 1;
    const int first = split * chunk, last = min(first + chunk, positions);
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const std::size_t head_rows = std::size_t(head) * l.cache;
    for (int d = threadIdx.x; d < kHeadDim; d += blockDim.x) q[d] = qkv[std::size_t(head) * kHeadDim + d];
    __syncthreads();
    for (int p = first + warp; p < last; p += kAttentionThreads / 32) {
        float k[4];
        if (p < l.cache) {
            const uint2 packed = reinterpret_cast<const uint2*>(l.k_cache + (head_rows + p) * kHeadDim)[lane];
            const float2 a = __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162*>(&packed.x));
            const float2 b = __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162*>(&packed.y));
            k[0] = a.x, k[1] = a.y, k[2] = b.x, k[3] = b.y;
        } else {
            for (int j = 0; j < 4; ++j) k[j] = qkv[l.hidden + std::size_t(head) * kHeadDim + 4 * lane + j];
        }
        float dot = 0;
        for (int j = 0; j < 4; ++j) dot = fmaf(q[4 * lane + j], k[j], dot);
        dot = warp_sum(dot);
        if (lane == 0) weights[p - first] = dot * rsqrtf(float(kHeadDim));
    }
    __syncthreads();
    float m = -INFINITY;
    for (int j = threadIdx.x; j < last - first; j += blockDim.x) m = fmaxf(m, weights[j]);
    m = block_max(m);
    float sum = 0;
    for (int j = threadIdx.x; j < last - first; j += blockDim.x) {
        weights[j] = __expf(weights[j] - m);
        sum += weights[j];
    }
    sum = block_sum(sum);  // its barriers also publish weights[]
    float* out = partial + (std::size_t(head) * splits + split) * kPartial;
    for (int d = threadIdx.x; d < kHeadDim; d += blockDim.x) {
        float acc = 0;
        for (int p = first; p < last; ++p) {
            const float v = p < l.cache ? __bfloat162float(l.v_cache[(head_rows + p) * kHeadDim + d])
                                        : qkv[2 * std::size_t(l.hidden) + std::size_t(head) * kHeadDim + d];
            acc = fmaf(weights[p - first], v, acc);
        }
        out[2 + d] = acc;
    }
    if (threadIdx.x == 0) out[0] = m, out[1] = sum;  // an empty slice: -inf and 0
}

// 3. One block per head: the slices rescaled to the largest max and added.
__global__ __launch_bounds__(kHeadDim) void attention_combine_kernel(const float* partial, float* o, int splits) {
    const int head = blockIdx.x, d = threadIdx.x;
    const float* slices = partial + std::size_t(head) * splits * kPartial;
    float m = -INFINITY;
    for (int s = 0; s < splits; ++s) m = fmaxf(m, slices[s * kPartial]);
    float sum = 0, acc = 0;
    for (int s = 0; s < splits; ++s) {
        if (slices[s * kPartial + 1] == 0) continue;  // an empty slice
        const float scale = __expf(slices[s * kPartial] - m);
        sum = fmaf(slices[s * kPartial + 1], scale, sum);
        acc = fmaf(slices[s * kPartial + 2 + d], scale, acc);
    }
    o[std::size_t(head) * kHeadDim + d] = acc / sum;
}

// 4. h = x + W_o o; 6. y = h + W_down act (bf16). One warp per row.
template <class Residual, class Out>
__global__ __launch_bounds__(kWarps * 32) void gemv_residual_kernel(const __nv_bfloat16* W, const float* in,
                                                                    const Residual* residual, Out* out, int N, int K) {
    const int row = blockIdx.x * kWarps + threadIdx.x / 32;
    if (row >= N) return;
    const float value = dot_row(W + std::size_t(row) * K, in, K) + to_float(residual[row]);
    if (threadIdx.x % 32 == 0) {
        if constexpr (sizeof(Out) == 2) out[row] = __float2bfloat16(value);
        else out[row] = value;
    }
}

// 5. act = silu(g) u with g, u = W_gate_up rmsnorm(h): warp j owns gate row j and up row ffn + j.
__global__ __launch_bounds__(kWarps * 32) void mlp_up_kernel(DecodeLayer l, const float* h, float* act) {
    const float r = inverse_rms(h, l.hidden);
    const int j = blockIdx.x * kWarps + threadIdx.x / 32;
    if (j >= l.ffn) return;
    const float2 dots = dot_two_rows(l.w_gate_up + std::size_t(j) * l.hidden,
                                     l.w_gate_up + (std::size_t(l.ffn) + j) * l.hidden, h, l.mlp_norm, l.hidden);
    const float g = dots.x * r, u = dots.y * r;
    if (threadIdx.x % 32 == 0) act[j] = g / (1.0f + __expf(-g)) * u;
}

}  // namespace

// The launch and the graph around it (given).
#include "given/decode_fused_launch.cuh"

