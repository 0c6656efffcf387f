// Open rung: causal attention of your own design. No TODOs: the contract is below, the ideas are
// in the lesson; the tiles, the staging, which warps do what, which matmul instruction and the
// order in which the uneven causal blocks run are yours to choose.
//
// Contract (variant open_attention_causal in lab.yaml):
//   The attention_causal op of roofline/attention.cuh: O = softmax(Q K^T / sqrt(head_dim)) V per
//   batch and head, keys after the query masked, bf16 in and out, fp32 softmax and accumulation;
//   its first comment gives the layout ([batch][heads][seq][head_dim]) and the tolerance's basis.
//   Timed at batch 4, heads 16, seq 4096, head_dim 128 against cuDNN's fused causal attention in
//   the same run; checked on every verify shape of lab.yaml, ragged sequence lengths and
//   head_dim 64 among them. Launch on `stream`; no synchronization, allocation or host copies.
//   Built for sm_90a (lab.yaml `requires`).
//
// What you may use:
//   - roofline/attention.cuh; roofline/cp_async.cuh (cp.async with zero fill, bf16 packing);
//     roofline/mma_sync.cuh (ldmatrix, mma.sync m16n8k16);
//   - roofline/tma.cuh, roofline/mbarrier.cuh, roofline/wgmma.cuh and roofline/wgmma_attention.cuh
//     (the wgmma shapes with P from registers and V read N-major);
//   - CUDA's headers. The given pieces of rungs 2-4 (given/*_pieces.cuh) are written for their
//     rungs' kernels; use them only where your design is theirs. No library that does the work
//     (grader/README.md, "What a kernel file may not do").
//
// Ideas to choose from (lessons/08-attention.md):
//   §1-2 the fewest bytes, and the trap of the scores through memory;
//   §3   the online softmax (and its -inf rule for rows that have seen no key yet);
//   §4   tiling Q against K and V; §5 FlashAttention-2 against FlashAttention-3 (what each
//        overlaps, and why Hopper wants a producer and wgmma);
//   §6   causal masking: half the work, uneven blocks, and the order they run in.
//
// Full performance marks: lab.yaml's target_fraction of cuDNN. Predict first
// (roofline predict 08-attention/open_attention_causal ...); the debrief compares designs.
#include "roofline/contract/attention.cuh"

namespace {

void open_attention(const __nv_bfloat16* q, const __nv_bfloat16* k, const __nv_bfloat16* v, __nv_bfloat16* o,
                    int batch, int heads, int seq, int head_dim, bool causal, cudaStream_t stream) {
    // Your kernel(s) and their launch. As given, nothing is launched and O is never written: the
    // grader reports the variant INCORRECT until you write it.
    (void)q, (void)k, (void)v, (void)o, (void)batch, (void)heads, (void)seq, (void)head_dim, (void)causal,
        (void)stream;
}

}  // namespace

ROOFLINE_ATTENTION_CAUSAL_VARIANT(open_attention_causal, open_attention);
