// The course's own kernels for the decode server (instructor build only: the student edition has
// no solutions/, and its server runs labs/10-production/server/fast_kernels_none.cu instead).
// These are answers: the attention is lab 10's reference design itself (../decode_attention_ring.cuh:
// grouped-query, split over the context, a ring of bulk copies per block, the merge in the block
// that arrives last), called on the server's layout and, with `kv_cache: fp8`, on its e4m3 cache;
// skinny_gemv.cu is lab 09's fused layer for a batch of rows. Linked into both server programs
// where solutions/ exists.
#include "check.cuh"
#include "decode_attention_api.cuh"
#include "fast_kernels.cuh"

#include "../decode_attention_ring.cuh"

namespace server {

bool fast_kernels_linked() { return true; }

void fast_decode_attention(const DecodeAttentionArgs& a, cudaStream_t stream) {
    namespace lab = roofline::decode_attention;
    if (a.q_heads != lab::kQueryHeads || a.kv_heads != lab::kKvHeads || a.head_dim != lab::kHeadDim || a.q_stride % 8 != 0)
        fail_now("the course's decode attention takes 32 query heads and 8 KV heads of 128 (Llama-3-8B's)");
    ring::Sequences sequences;
    sequences.q = a.q, sequences.q_stride = a.q_stride;
    sequences.lengths = a.positions, sequences.length_bias = 1;  // positions[b] + 1 positions, the new token's among them
    if (a.k_cache_fp8) {
        ring::Cache<std::uint8_t> cache;
        cache.k = a.k_cache_fp8, cache.v = a.v_cache_fp8, cache.k_scales = a.k_scales, cache.v_scales = a.v_scales;
        ring::attend(sequences, cache, a.out, a.workspace, a.batch, a.max_context, stream);
    } else {
        ring::Cache<__nv_bfloat16> cache;
        cache.k = a.k_cache, cache.v = a.v_cache;
        ring::attend(sequences, cache, a.out, a.workspace, a.batch, a.max_context, stream);
    }
}

}  // namespace server
