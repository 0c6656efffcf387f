// Given code for lab 09's rung 7 (kernels/07_decode_fused.cu): the launch of the kernel file's six
// kernels, and the CUDA graph that replays them (rung 6's wrapper), one per distinct layer. The
// kernel file defines the kernels before it includes this.
#pragma once
#include "roofline/contract/decode_layer.cuh"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <map>
#include <string>

#include "decode_fused_helpers.cuh"

namespace {

int blocks_for(long long items, int per_block) { return int((items + per_block - 1) / per_block); }

void launch_fused(const DecodeLayer& l, cudaStream_t stream) {
    const Layout at(l);
    float* s = l.scratch;
    const int positions = l.cache + 1;
    const int splits = std::min(kMaxSplits, blocks_for(positions, 32));
    const int chunk = blocks_for(positions, splits);
    qkv_kernel<<<blocks_for(3LL * l.hidden / 2, kWarps), kWarps * 32, 0, stream>>>(l, s + at.qkv);
    // weights[] rounded up to whole float4s: the compiler reads it in vectors of up to four, and
    // compute-sanitizer caught a 12-byte read past a 2-float slice (H200, 2026-11-30).
    const std::size_t weights_bytes = std::size_t(blocks_for(chunk, 4)) * 4 * sizeof(float);
    attention_partial_kernel<<<dim3(splits, l.heads), kAttentionThreads, weights_bytes, stream>>>(
        l, s + at.qkv, s + at.partial, chunk);
    attention_combine_kernel<<<l.heads, kHeadDim, 0, stream>>>(s + at.partial, s + at.o, splits);
    gemv_residual_kernel<__nv_bfloat16, float><<<blocks_for(l.hidden, kWarps), kWarps * 32, 0, stream>>>(
        l.w_o, s + at.o, l.x, s + at.h, l.hidden, l.hidden);
    mlp_up_kernel<<<blocks_for(l.ffn, kWarps), kWarps * 32, 0, stream>>>(l, s + at.h, s + at.act);
    gemv_residual_kernel<float, __nv_bfloat16><<<blocks_for(l.hidden, kWarps), kWarps * 32, 0, stream>>>(
        l.w_down, s + at.act, s + at.h, l.y, l.hidden, l.ffn);
}

std::map<std::string, cudaGraphExec_t> graphs;  // one per distinct DecodeLayer (its bytes)

void step(const DecodeLayer& layer, cudaStream_t stream) {
    auto [it, made] = graphs.try_emplace(std::string(reinterpret_cast<const char*>(&layer), sizeof(layer)), nullptr);
    if (made) {
        cudaGraph_t graph = nullptr;
        cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal);
        launch_fused(layer, stream);
        cudaStreamEndCapture(stream, &graph);
        cudaGraphInstantiate(&it->second, graph, 0);
        cudaGraphDestroy(graph);
    }
    cudaGraphLaunch(it->second, stream);
}

}  // namespace
