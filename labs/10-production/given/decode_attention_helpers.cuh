// Given code for lab 10's decode attention (kernels/01_decode_attention.cu): 16-byte loads of
// eight bf16, their widening to fp32, a fast exp2, and the split plan the lesson derives
// (lessons/10-production.md, "Decode attention"). The skeleton and the solution include the same file.
#pragma once
#include "roofline/contract/decode_attention.cuh"

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

namespace {

using roofline::decode_attention::kGroup;
using roofline::decode_attention::kHeadDim;
using roofline::decode_attention::kKvHeads;
using roofline::decode_attention::kMaxSplits;
using roofline::decode_attention::kPartialFloats;
using roofline::decode_attention::kQueryHeads;

// Eight consecutive bf16 (16 bytes, 16-byte aligned) through the read-only path.
__device__ inline uint4 load8(const __nv_bfloat16* at) { return __ldg(reinterpret_cast<const uint4*>(at)); }

// The eight bf16 of `u` as floats, in memory order: a bf16 is the top half of its float.
__device__ inline void widen8(const uint4& u, float* f) {
    const unsigned words[4] = {u.x, u.y, u.z, u.w};
#pragma unroll
    for (int i = 0; i < 4; ++i) {
        f[2 * i] = __uint_as_float(words[i] << 16);             // the lower address is the low half
        f[2 * i + 1] = __uint_as_float(words[i] & 0xFFFF0000u);
    }
}

// 2^x in one instruction (ex2.approx: about 2 ulp); 2^-inf = 0, which an empty running max needs.
__device__ inline float fast_exp2(float x) {
    float y;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
}

// The split plan: `splits` blocks over each sequence's context for each KV head, each of
// `chunk` positions (the last one shorter; blocks past a sequence's length have nothing to do).
struct SplitPlan {
    int splits = 1;
    int chunk = 1;
};

constexpr int kChunkQuantum = 64;  // a split's positions: a multiple of this

// About `waves` full waves of `blocks_per_sm` resident blocks on every SM: the whole number
// of splits nearest to that (a wave a few blocks short idles a few SMs; one a few blocks over
// adds a wave of stragglers), at least kChunkQuantum positions per block, at most kMaxSplits.
inline SplitPlan plan_splits(int batch, int capacity, int sms, int blocks_per_sm, int waves) {
    const long long pairs = (long long)batch * kKvHeads;  // (sequence, KV head) pairs
    const long long wanted = (long long)sms * blocks_per_sm * waves;
    const int splits = int(std::clamp<long long>((2 * wanted + pairs) / (2 * pairs), 1, kMaxSplits));
    const int per_split = (capacity + splits - 1) / splits;
    SplitPlan plan;
    plan.chunk = (per_split + kChunkQuantum - 1) / kChunkQuantum * kChunkQuantum;
    plan.splits = (capacity + plan.chunk - 1) / plan.chunk;  // never more than `splits`
    return plan;
}

// The SMs of the current GPU, asked once per device.
inline int sm_count() {
    static int cached_device = -1, cached = 0;
    int device = 0;
    cudaGetDevice(&device);
    if (device != cached_device) {
        cudaDeviceGetAttribute(&cached, cudaDevAttrMultiProcessorCount, device);
        cached_device = device;
    }
    return cached;
}

}  // namespace
