// The fused small-batch step (`fused_max_batch`): at a batch of a few sequences every GEMM of the
// step is a GEMV-shaped read of its weights, and the step's floor is those bytes. cuBLASLt's
// kernels for N = 1..8 reach that floor on the big matrices but leave each small op between them
// (norm, RoPE, cache append, residual add, SwiGLU) as a launch of its own: 12 kernels a layer. The
// design of lab 09's fused layer (solutions/09-decode/decode_fused.cuh), for a batch of NB rows:
// one warp per weight row (or pair of rows) reading it once with 16-byte loads, its dot products
// with all NB inputs at once, and the small ops folded into the GEMVs on either side:
//
//   norm_qkv_rope:  qkv = W_qkv rmsnorm(x) (each warp sums x^2 in its dot loop), RoPE applied on the way
//                   out (a warp owns the rows i and i + 64 of one head, the pair RoPE mixes), and
//                   the new K and V written into the cache at the sequence's position;
//   gemv_residual:  x += W act (the O projection, and the down projection);
//   norm_gate_up:   act = silu(g) u with g, u = W_gate_up rmsnorm(x): a warp owns gate row j and
//                   up row mlp + j, so g and u never reach memory;
//   norm_gemv_f32:  logits = W_lm rmsnorm(x), fp32 (the LM head, any number of rows).
//
// 5 kernels a layer with the attention's two, 196 a step instead of 389. The lab 09 helpers
// (labs/09-decode/given/decode_fused_helpers.cuh: 8-wide loads, warp and block sums) are included,
// not copied. CUDA-core FMAs: at 8 rows a weight byte costs 8 FLOPs, about half what the H200's
// fp32 units sustain at its copy rate, which is why the path stops at 8 (server_config.cpp).
#pragma once
#include "kernels.cuh"

namespace server {

constexpr int kMaxSkinnyBatch = 8;

// `overlap_launches: true`: the kernels below are launched with programmatic dependent launch. Each
// lets the next one start as soon as it has itself started its main loop, and each, once its blocks
// are resident, asks the L2 for the first bytes of its weight rows (they depend on nothing), then
// waits for the kernel before it to finish before reading that kernel's outputs. The weights' reads
// then run on across the kernel boundary instead of stopping for the drain, the launch and the ramp.
void set_overlap_launches(bool on);

// Every pointer below is bf16 row-major; x, act, qkv are [batch][width] with width their row length.
struct NormQkvArgs {
    const bf16* w = nullptr;      // [qkv_dim][hidden]
    const bf16* x = nullptr;      // [batch][hidden], the residual stream
    const bf16* gamma = nullptr;  // [hidden]
    bf16* qkv = nullptr;          // [batch][qkv_dim]: q and k rotated
    const int* positions = nullptr;
    bf16 *k_cache = nullptr, *v_cache = nullptr;            // this layer's, [batch][kv_heads][max_context][128]
    std::uint8_t *k_cache8 = nullptr, *v_cache8 = nullptr;  // or fp8, with this layer's scales
    const float *k_scales = nullptr, *v_scales = nullptr;
    int batch = 0, hidden = 0, q_heads = 0, kv_heads = 0, max_context = 0;
};
void norm_qkv_rope(const NormQkvArgs& args, cudaStream_t stream);

// x[b] += W act[b]: W [rows][k], act [batch][k], x [batch][rows].
void gemv_residual(const bf16* w, const bf16* act, bf16* x, int batch, int rows, int k, cudaStream_t stream);
// act[b][j] = silu(g) u, g = W[j] . n(x[b]), u = W[mlp + j] . n(x[b]), n = rmsnorm with gamma.
void norm_gate_up_swiglu(const bf16* w, const bf16* x, const bf16* gamma, bf16* act, int batch, int hidden, int mlp,
                         cudaStream_t stream);
// y[b][r] = W[r] . n(x[b]) in fp32, row stride ldy.
void norm_gemv_f32(const bf16* w, const bf16* x, const bf16* gamma, float* y, int ldy, int batch, int rows, int hidden,
                   cudaStream_t stream);

}  // namespace server
