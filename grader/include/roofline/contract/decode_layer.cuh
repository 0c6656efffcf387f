// The decode_layer op of the gemv family (lab 09, rung 5): one decoder layer of a
// Llama-style transformer at batch 1, for one new token at position P = cache (the
// number of positions already in the KV cache). With H = hidden, F = ffn and heads of
// kHeadDim = 128 (H = heads * 128):
//
//   a       = rmsnorm(x) * attn_norm             rmsnorm(v) = v / sqrt(mean(v^2) + 1e-5)
//   q, k, v = W_qkv a                            W_qkv [3H, H]: rows 0..H-1 give q, H..2H-1 k,
//                                                2H..3H-1 v; head j owns rows j*128 .. j*128+127 of each
//   q, k    = rope(q), rope(k) at position P     per head, for i < 64, angle = P * 10000^(-i/64):
//             (u[i], u[i+64]) -> (u[i] cos - u[i+64] sin, u[i+64] cos + u[i] sin)
//   o_j     = softmax(q_j . K_j^T / sqrt(128)) V_j    over the P cached positions of head j
//                                                (k_cache, v_cache [heads, P, 128]) and the new k_j, v_j
//   h       = x + W_o o                          W_o [H, H]
//   b       = rmsnorm(h) * mlp_norm
//   g, u    = W_gate_up b                        W_gate_up [2F, H]: rows 0..F-1 give g, F..2F-1 u
//   y       = h + W_down (silu(g) * u)           W_down [H, F]; silu(t) = t / (1 + e^-t)
//
// Every weight, x, the cache and y are bf16 (row-major); the reference computes in fp64
// from the exact inputs, so the variant may keep its intermediates in fp32 (in `scratch`)
// and round only y. The cache is read, never written: the new k and v are attended to
// where the variant keeps them. A lab file defines a launch function and registers it:
//
//     void step(const roofline::gemv::DecodeLayer& layer, cudaStream_t stream);
//     ROOFLINE_DECODE_LAYER_VARIANT(decode_launches_h512, step);
//
// `scratch` holds decode_scratch_floats(...) floats of device memory, NaN on entry to a
// verified launch: write before you read. Launch on `stream`; do not synchronize,
// allocate or copy to the host (a CUDA graph made once per distinct DecodeLayer is fine).
#pragma once
#include "variant.hpp"


#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstddef>

namespace roofline::gemv {

inline constexpr int kHeadDim = 128;
inline constexpr float kRmsEpsilon = 1e-5f;
inline constexpr float kRopeBase = 10000.0f;

struct DecodeLayer {
    int hidden = 0, heads = 0, ffn = 0, cache = 0;  // hidden = heads * kHeadDim; cache = P
    const __nv_bfloat16* x = nullptr;               // [hidden]
    const __nv_bfloat16* attn_norm = nullptr;       // [hidden]
    const __nv_bfloat16* w_qkv = nullptr;           // [3 hidden, hidden]
    const __nv_bfloat16* k_cache = nullptr;         // [heads, cache, kHeadDim]
    const __nv_bfloat16* v_cache = nullptr;         // [heads, cache, kHeadDim]
    const __nv_bfloat16* w_o = nullptr;             // [hidden, hidden]
    const __nv_bfloat16* mlp_norm = nullptr;        // [hidden]
    const __nv_bfloat16* w_gate_up = nullptr;       // [2 ffn, hidden]
    const __nv_bfloat16* w_down = nullptr;          // [hidden, ffn]
    float* scratch = nullptr;                       // decode_scratch_floats(...) floats, yours
    __nv_bfloat16* y = nullptr;                     // [hidden]
};

// Room for every intermediate of the given launches (hidden- and ffn-sized vectors, the
// scores of every head) and for 64 partial results of 130 floats per head (a split
// attention's running max, sum and output).
inline constexpr std::size_t decode_scratch_floats(int hidden, int heads, int ffn, int cache) {
    return 16 * std::size_t(hidden) + 4 * std::size_t(ffn) + 2 * std::size_t(heads) * (cache + 1) +
           std::size_t(heads) * 64 * (kHeadDim + 2);
}

using DecodeLayerLaunch = void (*)(const DecodeLayer& layer, cudaStream_t stream);

bool register_decode_layer(const char* name, DecodeLayerLaunch launch, const char* file);

}  // namespace roofline::gemv

#define ROOFLINE_DECODE_LAYER_VARIANT(name, launch) ROOFLINE_REGISTER_VARIANT(gemv, register_decode_layer, name, launch)
