// Open rung: decode attention over a ragged batch, of your own design. No TODOs: the contract is
// below, the ideas are in the lesson; how the work is split over the SMs, how the cache's bytes
// reach the arithmetic, how many kernels there are and how the splits are merged are yours to
// choose.
//
// Contract (variant open_decode_attention_b8_ragged in lab.yaml):
//   The decode_attention op of roofline/contract/decode_attention.cuh (its first comment gives
//   the layouts, the lengths on the device, the workspace and what the cache holds past each
//   sequence's length): 32 query heads on 8 KV heads of 128, bf16 in and out, the softmax and
//   every sum in fp32. Timed at batch 8 with lengths falling from 32,768 to 4,096 positions
//   (alternating long and short, lab.yaml's rule), against cudaMemcpy moving the same bytes in
//   the same run; checked on every verify shape of lab.yaml (batch 1 to 64, 1 to 33,000
//   positions, ragged). Launch on `stream` (several kernels are fine); no synchronization,
//   allocation or host copies in the launch.
//
// What you may use:
//   - roofline/contract/decode_attention.cuh (the shapes, decode_attention_workspace_floats,
//     softmax_scale);
//   - roofline/ptx/tma.cuh (load_1d: a bulk copy of contiguous bytes into shared memory; the
//     tensor-map copies), roofline/ptx/mbarrier.cuh, roofline/ptx/cp_async.cuh;
//   - the given helpers of given/decode_attention_helpers.cuh (16-byte loads, their widening,
//     fast_exp2, plan_splits and sm_count), CUDA's headers. No library that does the work
//     (grader/README.md, "One `roofline grade`", step 4: the symbol check).
//
// Ideas to choose from (lessons/10-production.md, "Decode attention"):
//   the bytes and the FLOPs (what the floor is, and why the CUDA cores suffice);
//   why the group matters (each KV head read once for its 4 query heads);
//   why split the context, and how many splits (a ragged batch: the host knows only the
//   capacity, the lengths are on the device);
//   the bytes in flight an SM needs (lesson 01's Little's law), and the ways to get them there;
//   the online softmax inside a block and across blocks, and where the merge runs.
//
// Full performance marks: lab.yaml's target_fraction of cudaMemcpy. Predict first
// (roofline predict 10-production/open_decode_attention_b8_ragged ...); the debrief compares designs.
#include "roofline/contract/decode_attention.cuh"

#include "given/decode_attention_helpers.cuh"

namespace {

void open_decode_attention(const __nv_bfloat16* q, const __nv_bfloat16* k_cache, const __nv_bfloat16* v_cache,
                           const int* lengths, __nv_bfloat16* out, float* workspace, int batch, int capacity,
                           cudaStream_t stream) {
    // Your kernel(s) and their launch. As given, nothing is launched and out is never written:
    // the grader reports the variant INCORRECT until you write it.
    (void)q, (void)k_cache, (void)v_cache, (void)lengths, (void)out, (void)workspace, (void)batch, (void)capacity,
        (void)stream;
}

}  // namespace

ROOFLINE_DECODE_ATTENTION_VARIANT(open_decode_attention_b8_ragged, open_decode_attention);
