// Given code for lab 09's rung 7 (kernels/07_decode_fused.cu): the launch sizes, the layout of
// the layer's scratch, warp and block reductions, 8-wide loads, the inverse rms and the
// dot products of one and two rows. The skeleton and the solution include this one file; the
// six kernels are the kernel file's.
#pragma once
#include "roofline/contract/decode_layer.cuh"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <map>
#include <string>

namespace {

using roofline::gemv::DecodeLayer;
using roofline::gemv::kHeadDim;
using roofline::gemv::kRmsEpsilon;
using roofline::gemv::kRopeBase;

constexpr int kWarps = 8;
constexpr int kMaxSplits = 64;
constexpr int kPartial = kHeadDim + 2;  // running max, sum, then 128 outputs
constexpr int kAttentionThreads = 128;

std::size_t round_up(std::size_t n) { return (n + 63) / 64 * 64; }

struct Layout {  // offsets into layer.scratch, in floats
    std::size_t qkv, partial, o, h, act;
    explicit Layout(const DecodeLayer& l) {
        qkv = 0;
        partial = round_up(3 * std::size_t(l.hidden));
        o = partial + round_up(std::size_t(l.heads) * kMaxSplits * kPartial);
        h = o + round_up(l.hidden);
        act = h + round_up(l.hidden);
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
__device__ float block_sum(float v) {  // to every thread
    __shared__ float partial[32];
    v = warp_sum(v);
    if (threadIdx.x % 32 == 0) partial[threadIdx.x / 32] = v;
    __syncthreads();
    float total = 0;
    for (int w = 0; w < int(blockDim.x / 32); ++w) total += partial[w];
    __syncthreads();
    return total;
}
__device__ float block_max(float v) {
    __shared__ float partial[32];
    v = warp_max(v);
    if (threadIdx.x % 32 == 0) partial[threadIdx.x / 32] = v;
    __syncthreads();
    float m = -INFINITY;
    for (int w = 0; w < int(blockDim.x / 32); ++w) m = fmaxf(m, partial[w]);
    __syncthreads();
    return m;
}

__device__ __forceinline__ void unpack8(uint4 p, float (&out)[8]) {
    const auto* pairs = reinterpret_cast<const __nv_bfloat162*>(&p);
#pragma unroll
    for (int i = 0; i < 4; ++i) {
        const float2 f = __bfloat1622float2(pairs[i]);
        out[2 * i] = f.x, out[2 * i + 1] = f.y;
    }
}
// 8 consecutive activations from v * 8, as fp32.
__device__ __forceinline__ void load8(const __nv_bfloat16* p, int v, float (&out)[8]) {
    unpack8(reinterpret_cast<const uint4*>(p)[v], out);
}
__device__ __forceinline__ void load8(const float* p, int v, float (&out)[8]) {
    const float4 lo = reinterpret_cast<const float4*>(p)[2 * v], hi = reinterpret_cast<const float4*>(p)[2 * v + 1];
    out[0] = lo.x, out[1] = lo.y, out[2] = lo.z, out[3] = lo.w, out[4] = hi.x, out[5] = hi.y, out[6] = hi.z,
    out[7] = hi.w;
}
__device__ __forceinline__ float to_float(float v) { return v; }
__device__ __forceinline__ float to_float(__nv_bfloat16 v) { return __bfloat162float(v); }

// 1 / rms(in) over n values, computed by the whole block.
template <class In>
__device__ float inverse_rms(const In* in, int n) {
    float squares = 0;
    for (int i = threadIdx.x; i < n; i += blockDim.x) squares += to_float(in[i]) * to_float(in[i]);
    return rsqrtf(block_sum(squares) / n + kRmsEpsilon);
}

// The warp's dot products of rows w0 and w1 (K % 8 == 0) with in * gamma, summed over lanes.
template <class In>
__device__ float2 dot_two_rows(const __nv_bfloat16* w0, const __nv_bfloat16* w1, const In* in,
                               const __nv_bfloat16* gamma, int K) {
    const int lane = threadIdx.x % 32;
    float acc0 = 0, acc1 = 0;
    for (int v = lane; v < K / 8; v += 32) {
        const uint4 p0 = reinterpret_cast<const uint4*>(w0)[v], p1 = reinterpret_cast<const uint4*>(w1)[v];
        float a[8], g[8], r0[8], r1[8];
        load8(in, v, a);
        load8(gamma, v, g);
        unpack8(p0, r0);
        unpack8(p1, r1);
#pragma unroll
        for (int i = 0; i < 8; ++i) {
            const float ag = a[i] * g[i];
            acc0 = fmaf(r0[i], ag, acc0);
            acc1 = fmaf(r1[i], ag, acc1);
        }
    }
    return {warp_sum(acc0), warp_sum(acc1)};
}

// One warp's dot product of row w (any K) with in, summed over lanes.
__device__ float dot_row(const __nv_bfloat16* w, const float* in, int K) {
    const int lane = threadIdx.x % 32;
    float acc = 0;
    if (K % 8 == 0) {
        for (int v = lane; v < K / 8; v += 32) {
            float a[8], r[8];
            load8(in, v, a);
            unpack8(reinterpret_cast<const uint4*>(w)[v], r);
#pragma unroll
            for (int i = 0; i < 8; ++i) acc = fmaf(r[i], a[i], acc);
        }
    } else {
        for (int k = lane; k < K; k += 32) acc = fmaf(__bfloat162float(w[k]), in[k], acc);
    }
    return warp_sum(acc);
}


}  // namespace
