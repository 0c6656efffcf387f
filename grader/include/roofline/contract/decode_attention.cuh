// The decode attention of lab 10: one new query token per sequence of a batch, attending to
// that sequence's KV cache, with grouped-query attention (the heads of Llama-3-8B):
//
//     out[b, h] = softmax(q[b, h] . K[b, g]^T * scale) V[b, g],   g = h / 4,  scale = 1/sqrt(128)
//
// over the positions p < lengths[b] of sequence b only. With kQueryHeads = 32 query heads and
// kKvHeads = 8 KV heads of kHeadDim = 128 (decode_attention_shape.hpp), query heads 4g .. 4g+3
// share KV head g. All arrays are bf16, row-major, head_dim contiguous:
//
//     q        [batch][32][128]                  the new token's queries (rotary already applied)
//     k_cache  [batch][8][capacity][128]         keys of every cached position, the new token's included
//     v_cache  [batch][8][capacity][128]         values, the same layout
//     lengths  [batch] int32, on the device     1 <= lengths[b] <= capacity: sequence b's positions
//     out      [batch][32][128]                  written by the variant
//
// `capacity` is the cache's room per sequence (the stride between sequences); each sequence has
// its own length, as in a server's batch, and the host does not know them: read them on the
// device. Positions lengths[b] .. capacity-1 hold garbage (the grader puts NaN there): never let
// them into the arithmetic, not even multiplied by zero. The softmax and every sum in fp32.
//
// `workspace` is decode_attention_workspace_floats(batch) floats of device memory, yours for
// partial results (room for kMaxSplits splits of every sequence and query head, kPartialFloats
// each); it holds NaN on entry to a verified launch: write before you read. A lab file defines
//
//     void decode_split_kv(const __nv_bfloat16* q, const __nv_bfloat16* k_cache,
//                          const __nv_bfloat16* v_cache, const int* lengths, __nv_bfloat16* out,
//                          float* workspace, int batch, int capacity, cudaStream_t stream);
//     ROOFLINE_DECODE_ATTENTION_VARIANT(decode_attention_b1_4k, decode_split_kv);
//
// Pointers come from cudaMalloc (256-byte aligned, so every K and V row is 16-byte aligned). At
// batch 64 and 32k positions each cache holds 2^31 elements: index it with 64-bit offsets.
// Launch on `stream` (several kernels are fine); do not synchronize, allocate or copy to the host.
#pragma once
#include "decode_attention_shape.hpp"
#include "variant.hpp"

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstddef>

namespace roofline::decode_attention {

using DecodeAttentionLaunch = void (*)(const __nv_bfloat16* q, const __nv_bfloat16* k_cache,
                                       const __nv_bfloat16* v_cache, const int* lengths, __nv_bfloat16* out,
                                       float* workspace, int batch, int capacity, cudaStream_t stream);

bool register_decode_attention(const char* name, DecodeAttentionLaunch launch, const char* file);

// Floats of `workspace`: kMaxSplits partial results of kPartialFloats for every query head.
__host__ __device__ inline constexpr std::size_t decode_attention_workspace_floats(int batch) {
    return std::size_t(batch) * kQueryHeads * kMaxSplits * kPartialFloats;
}

// The softmax's scale, 1 / sqrt(128), as the reference computes it.
__host__ __device__ inline float softmax_scale() { return 1.0f / sqrtf(float(kHeadDim)); }

}  // namespace roofline::decode_attention

#define ROOFLINE_DECODE_ATTENTION_VARIANT(name, launch) \
    ROOFLINE_REGISTER_VARIANT(decode_attention, register_decode_attention, name, launch)
