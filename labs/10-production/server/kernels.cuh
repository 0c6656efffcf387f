// The server's small kernels, written plainly: one thread block per row (or per sequence and
// head), fp32 arithmetic, bf16 in memory. Each launcher takes the batch it works on, so the
// per-request path can call it with batch 1 and pointers moved to one sequence.
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace server {

using bf16 = __nv_bfloat16;

constexpr float kRmsEps = 1e-5f;
constexpr double kRopeTheta = 500000.0;  // Llama 3's
constexpr float kPrefillAmax = 1.7f;      // the random prefill's keys and values: uniform in [-1.7, 1.7)

// fp8 e4m3, the `kv_cache: fp8` cache's element: x rounded to nearest, saturated at +-448 (a
// value beyond the scale's range is clipped, never infinite), and back.
__device__ __forceinline__ std::uint8_t fp8_e4m3(float x) { return __nv_cvt_float_to_fp8(x, __NV_SATFINITE, __NV_E4M3); }
__device__ __forceinline__ float from_fp8_e4m3(std::uint8_t x) { return float(*reinterpret_cast<const __nv_fp8_e4m3*>(&x)); }

// Uniform values in [-scale, scale) from a counter-based hash of (seed, index): the same weights
// for the same seed on any GPU, made where they live (no 16 GB upload).
void fill_uniform(bf16* data, std::size_t count, std::uint64_t seed, float scale, float offset, cudaStream_t stream);
// The same values as fill_uniform (offset 0), stored as fp8 e4m3 of value / quant_scale.
void fill_uniform_fp8(std::uint8_t* data, std::size_t count, std::uint64_t seed, float scale, float quant_scale,
                      cudaStream_t stream);
void fill_value(float* data, std::size_t count, float value, cudaStream_t stream);
// The tokens [0, vocab) the batch starts from.
void fill_tokens(int* tokens, int batch, int vocab, std::uint64_t seed, cudaStream_t stream);

// x[b] = table[tokens[b]]
void embed(const bf16* table, const int* tokens, bf16* x, int batch, int hidden, cudaStream_t stream);
// y[b] = x[b] / rms(x[b]) * weight
void rmsnorm(const bf16* x, const bf16* weight, bf16* y, int batch, int hidden, cudaStream_t stream);
// qkv[b] = [q (q_heads x d) | k (kv_heads x d) | v (kv_heads x d)]: RoPE on q and k in place at
// positions[b], then k and v written into the caches ([batch][kv_heads][max_context][d]) there.
void rope_and_append_kv(bf16* qkv, const int* positions, bf16* k_cache, bf16* v_cache, int batch, int q_heads,
                        int kv_heads, int head_dim, int max_context, cudaStream_t stream);
// The same with an fp8 cache: a key or value stored as e4m3 of its bf16 value over its KV head's
// scale (k_scales / v_scales: [kv_heads], this layer's).
void rope_and_append_kv_fp8(bf16* qkv, const int* positions, std::uint8_t* k_cache, std::uint8_t* v_cache,
                            const float* k_scales, const float* v_scales, int batch, int q_heads, int kv_heads,
                            int head_dim, int max_context, cudaStream_t stream);
// x[b] += y[b]
void residual_add(bf16* x, const bf16* y, int batch, int hidden, cudaStream_t stream);
// out[b][i] = silu(gate_up[b][i]) * gate_up[b][mlp + i]
void swiglu(const bf16* gate_up, bf16* out, int batch, int mlp, cudaStream_t stream);
// tokens[b] = argmax over the first `vocab` of logits[b] (row stride `ld`); the smaller index on a tie.
void argmax(const float* logits, int ld, int vocab, int* tokens, int batch, cudaStream_t stream);
// After a step: history[step][b] = tokens[b]; positions[b] += 1; step += 1. One thread block.
void advance(const int* tokens, int* positions, int* history, int* step, int batch, cudaStream_t stream);

// The CUDA-core GEMM: y[n][m] = sum_k x[n][k] * w[m][k], fp32 accumulation, output bf16 or fp32
// (one of y_bf16 / y_f32 non-null). Any sizes and leading dimensions.
void portable_gemm(const bf16* w, int ldw, const bf16* x, int ldx, bf16* y_bf16, float* y_f32, int ldy, int m, int n,
                   int k, cudaStream_t stream);

}  // namespace server
