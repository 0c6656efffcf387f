// The server's decode attention, behind one function pointer: the plain kernel here (fp32 softmax,
// one block per sequence and query head) or the student's decode-attention kernel (module 10's lab),
// chosen by the configuration's `attention: plain | student`.
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

#include <cstddef>

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
    // Scratch the kernel may use (partial results of a split over the context): at least
    // kDecodeAttentionWorkspaceFloats(batch, q_heads, max_context) floats, on the device.
    float* workspace = nullptr;
};

// 130 floats (a running max, a sum and 128 accumulators) per (sequence, query head, 64 positions).
inline std::size_t decode_attention_workspace_floats(int batch, int q_heads, int max_context) {
    return std::size_t(batch) * q_heads * ((max_context + 63) / 64) * 130;
}

using DecodeAttentionFn = void (*)(const DecodeAttentionArgs& args, cudaStream_t stream);

// The plain kernels' launcher (kernels.cu): the context split into chunks of positions, one
// thread block per (query head, sequence, chunk), then one block per (query head, sequence) merging them.
void plain_decode_attention(const DecodeAttentionArgs& args, cudaStream_t stream);
// The student's kernel where one is linked in (student_attention.cu), else nullptr: the server
// then refuses `attention: student` with a message saying so.
DecodeAttentionFn student_decode_attention();

}  // namespace server
