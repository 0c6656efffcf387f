// Given code for lab 08's rung 2 (kernels/02_fused.cu): the launch. It launches the kernel file's
// kernel with the kernel file's `Chosen` tiling, so the kernel file includes it after them.
#pragma once
#include "roofline/contract/attention.cuh"
#include "roofline/ptx/cp_async.cuh"
#include "roofline/ptx/mma_sync.cuh"

#include <cstdint>

namespace {

template <int D, class T>
void launch_for(const __nv_bfloat16* q, const __nv_bfloat16* k, const __nv_bfloat16* v, __nv_bfloat16* o, int batch,
                int heads, int seq, bool causal, cudaStream_t stream) {
    // 68 KiB at D = 128, over the 48 KiB a launch gets without asking: opt in.
    constexpr int kSharedBytes = (T::kQueries + 2 * T::kKeys) * (D + kPad) * 2;
    cudaFuncSetAttribute(fused_attention<D, T>, cudaFuncAttributeMaxDynamicSharedMemorySize, kSharedBytes);
    const dim3 grid((seq + T::kQueries - 1) / T::kQueries, batch * heads);
    fused_attention<D, T>
        <<<grid, T::kThreads, kSharedBytes, stream>>>(q, k, v, o, seq, softmax_scale(D) * kLog2e, causal);
}

template <class T>
void launch_tiled(const __nv_bfloat16* q, const __nv_bfloat16* k, const __nv_bfloat16* v, __nv_bfloat16* o,
                  int batch, int heads, int seq, int head_dim, bool causal, cudaStream_t stream) {
    if (head_dim == 64) launch_for<64, T>(q, k, v, o, batch, heads, seq, causal, stream);
    else launch_for<128, T>(q, k, v, o, batch, heads, seq, causal, stream);
}

void fused_attention_launch(const __nv_bfloat16* q, const __nv_bfloat16* k, const __nv_bfloat16* v, __nv_bfloat16* o,
                            int batch, int heads, int seq, int head_dim, bool causal, cudaStream_t stream) {
    launch_tiled<Chosen>(q, k, v, o, batch, heads, seq, head_dim, causal, stream);
}

}  // namespace
