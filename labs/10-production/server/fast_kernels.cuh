// The course's own fast kernels for the server: a grouped-query split-KV decode attention (bf16
// or fp8 cache: `attention: plain` runs it where it is linked) and the fused small-batch step
// (skinny_gemv.cuh, `fused_max_batch`). They are answers to labs 09 and 10, so they live in
// solutions/10-production/server/ and are linked where solutions/ exists; the student edition's
// server links fast_kernels_none.cu, runs the plain kernels of kernels.cu and refuses the keys
// that need these (`kv_cache: fp8`, `fused_max_batch` above 0) with a message saying so.
#pragma once
#include "decode_attention_api.cuh"

namespace server {

bool fast_kernels_linked();
void fast_decode_attention(const DecodeAttentionArgs& args, cudaStream_t stream);

}  // namespace server
