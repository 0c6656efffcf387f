// The server's decode attention, behind one function pointer: the plain kernels (kernels.cu) or the
// student's decode-attention kernel (module 10's lab, linked in by student_attention.cu), chosen by
// the configuration's `attention: plain | student`.
//
// Layouts (bf16, row-major):
//   q        [batch][q_heads][head_dim]          the new token's queries, RoPE applied; sequence b's
//            start q_stride elements after sequence b-1's (the server's q sits in its [q | k | v] rows)
//   k_cache  [batch][kv_heads][max_context][head_dim]   one layer's keys, RoPE applied
//   v_cache  the same shape, values
//   out      [batch][q_heads][head_dim]
// Sequence b attends over positions 0 .. positions[b] of its cache (the new token's K and V are
// already written at positions[b]). Query head h reads KV head h / (q_heads / kv_heads).
// The per-request path calls it with batch 1 and the pointers moved to one sequence.
#pragma once
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>

namespace server {

struct DecodeAttentionArgs {
    const __nv_bfloat16* q = nullptr;
    const __nv_bfloat16* k_cache = nullptr;
    const __nv_bfloat16* v_cache = nullptr;
    const int* positions = nullptr;  // device, [batch]
    __nv_bfloat16* out = nullptr;
    int batch = 0;
    int q_heads = 0;
    int kv_heads = 0;
    int head_dim = 0;
    int q_stride = 0;     // elements from one sequence's queries to the next's
    int max_context = 0;  // positions per sequence the cache holds (its stride)
    int longest = 0;      // the largest positions[b] + 1 of this call, known on the host (for grid sizes)
    float scale = 0;      // 1 / sqrt(head_dim)
    // `kv_cache: fp8`: the caches hold e4m3 bytes in the same layout, and
    // k_cache / v_cache are null. A stored byte x means x * scale, one scale per KV head of this
    // layer for the keys and one for the values.
    const std::uint8_t* k_cache_fp8 = nullptr;
    const std::uint8_t* v_cache_fp8 = nullptr;
    const float* k_scales = nullptr;  // device, [kv_heads]
    const float* v_scales = nullptr;
    // Scratch the kernel may use (partial results of a split over the context): at least
    // kDecodeAttentionWorkspaceFloats(batch, q_heads, max_context) floats, on the device.
    float* workspace = nullptr;
};

// 130 floats (a running max, a sum and 128 accumulators) per (sequence, query head, split): the
// plain kernels split the context into chunks of 64 positions, the course's kernel into at most
// 128 splits (lab 10's contract).
inline std::size_t decode_attention_workspace_floats(int batch, int q_heads, int max_context) {
    const std::size_t splits = std::max((max_context + 63) / 64, 128);
    return std::size_t(batch) * q_heads * splits * 130;
}

using DecodeAttentionFn = void (*)(const DecodeAttentionArgs& args, cudaStream_t stream);

// The plain kernels' launcher (kernels.cu): the context split into chunks of positions, one
// thread block per (chunk, KV head, sequence) reading each row once for the KV head's query
// heads, then one block per (query head, sequence) merging the chunks. bf16 or fp8 caches.
void plain_decode_attention(const DecodeAttentionArgs& args, cudaStream_t stream);
// The lab's kernel linked into this program (student_attention.cu: the student's file in
// roofline-decode-server, the solution's in roofline-decode-server-solution), bridged to this
// call and ready for batches up to max_batch; launch is nullptr where no kernel file registered one.
struct LabAttention {
    DecodeAttentionFn launch = nullptr;
    std::string file;     // the kernel file, as it registered itself
    std::string variant;  // the first variant it registered
};
LabAttention lab_decode_attention(int max_batch);

}  // namespace server
