// FLOP and byte model of the gemv family (lab 09): y = W x with W [N,K] row-major.
// Every op reads W once, x once and writes y once; 2 FLOPs per weight and row of x.
// W dominates: at N = K = 8192 it is 128 MiB of bf16 against 16 KiB of x, so the
// intensity is ~1 FLOP/byte for bf16 weights and ~2 for one-byte weights.
//
// Peers: for the single-row ops, cudaMemcpy moving W's bytes (a copy of half of W:
// its reads plus its writes are W's size), the memory roof measured in the same run;
// for the batched op, cuBLAS doing the same product.
#pragma once
#include "ops.hpp"
#include "workload.hpp"

#include <string>

namespace roofline::gemv {

// Bytes of one weight: bf16 2, int8 and fp8 e4m3 1 (`op` is gemv, gemv_int8, gemv_fp8, gemv_batched).
inline bool one_byte_weights(const std::string& op) { return op == ops::gemv_int8 || op == ops::gemv_fp8; }
inline double weight_bytes(const std::string& op) { return one_byte_weights(op) ? 1.0 : 2.0; }

// The quantized ops also read one fp32 scale per output channel (row of W).
inline double scale_bytes(const std::string& op, double n) {
    return one_byte_weights(op) ? 4.0 * n : 0.0;
}

// y[m, n] for m < M rows of x (M = 1 for every op but gemv_batched); x and y bf16.
inline Workload work_of(const std::string& op, double m, double n, double k) {
    return {2 * m * n * k, n * k * weight_bytes(op) + scale_bytes(op, n) + 2 * m * k + 2 * m * n};
}

// cudaMemcpy of W's bytes (read plus write), for the single-row ops.
inline Workload memcpy_peer_work(const std::string& op, double n, double k) { return {0, n * k * weight_bytes(op)}; }

// decode_layer (rung 5): one decoder layer at batch 1 (grader/include/roofline/contract/decode_layer.cuh):
// hidden H = heads x 128, ffn F, P positions in the KV cache. The fewest bytes read every weight
// (W_qkv 3H x H, W_o H x H, W_gate_up 2F x H, W_down H x F, two norms of H) and the cache's k and v
// (2 x heads x P x 128) once, all bf16, plus x and y. The FLOPs are the four GEMVs' and the
// attention's q.k and p.v over P + 1 positions; norms, rotary and softmax are left out (< 0.1%).
inline Workload decode_layer_work(double hidden, double heads, double ffn, double cache) {
    const double head_dim = 128;
    const double weights = 4 * hidden * hidden + 3 * ffn * hidden + 2 * hidden;
    const double kv = 2 * heads * cache * head_dim;
    const double flops = 2 * (4 * hidden * hidden + 3 * ffn * hidden) + 4 * heads * (cache + 1) * head_dim;
    return {flops, 2 * (weights + kv) + 2 * hidden + 2 * hidden};
}

// FLOPs per byte: what the roofline's x axis shows. Climbs with M until W stops dominating.
inline double intensity(const std::string& op, double m, double n, double k) {
    auto w = work_of(op, m, n, k);
    return w.flops / w.bytes;
}

}  // namespace roofline::gemv
