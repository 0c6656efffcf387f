// The attention problem of lab 08: for each batch b and head h,
//
//     O[b,h] = softmax(Q[b,h] K[b,h]^T * scale) V[b,h],   scale = 1 / sqrt(head_dim),
//
// Q, K, V, O bf16 arrays [batch][heads][seq][head_dim], row-major (head_dim contiguous),
// the softmax along each row of the seq x seq scores, in fp32, and every sum accumulated
// in fp32. Causal attention masks the scores of keys after the query (column j > row i)
// to -infinity before the softmax: query i sees keys 0..i. head_dim is 64 or 128; seq
// is any length from 1 up.
//
// A lab file defines a launch function with one of the signatures below and registers
// it, as plain or causal attention (the same function may serve both):
//
//     void launch_fused(const __nv_bfloat16* q, const __nv_bfloat16* k, const __nv_bfloat16* v,
//                       __nv_bfloat16* o, int batch, int heads, int seq, int head_dim, bool causal,
//                       cudaStream_t stream);
//     ROOFLINE_ATTENTION_VARIANT(fused, launch_fused);
//     ROOFLINE_ATTENTION_CAUSAL_VARIANT(fused_causal, launch_fused);
//
// The second signature adds `float* scores`, batch * heads * seq * seq floats of scratch
// the grader allocates (lab 08's given naive kernels keep the score matrix there).
//
// Pointers come from cudaMalloc (256-byte aligned). Launch on `stream`; do not
// synchronize, allocate or copy to the host.
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cmath>

namespace roofline::attention {

using AttentionLaunch = void (*)(const __nv_bfloat16* q, const __nv_bfloat16* k, const __nv_bfloat16* v,
                                 __nv_bfloat16* o, int batch, int heads, int seq, int head_dim, bool causal,
                                 cudaStream_t stream);
using AttentionScoresLaunch = void (*)(const __nv_bfloat16* q, const __nv_bfloat16* k, const __nv_bfloat16* v,
                                       __nv_bfloat16* o, float* scores, int batch, int heads, int seq,
                                       int head_dim, bool causal, cudaStream_t stream);

bool register_attention(const char* name, AttentionLaunch launch, bool causal, const char* file);
bool register_attention(const char* name, AttentionScoresLaunch launch, bool causal, const char* file);

// The softmax's scale, 1 / sqrt(head_dim), as the reference computes it.
__host__ __device__ inline float softmax_scale(int head_dim) { return 1.0f / sqrtf(static_cast<float>(head_dim)); }

}  // namespace roofline::attention

#define ROOFLINE_ATTENTION_VARIANT(name, launch) \
    [[maybe_unused]] static const bool roofline_variant_##name = \
        ::roofline::attention::register_attention(#name, launch, false, __FILE__)
#define ROOFLINE_ATTENTION_CAUSAL_VARIANT(name, launch) \
    [[maybe_unused]] static const bool roofline_variant_##name = \
        ::roofline::attention::register_attention(#name, launch, true, __FILE__)
