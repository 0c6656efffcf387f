// FLOP and byte model of lab 04's fusion problems, fused and unfused (every
// array `element_bytes` wide: bf16 in the lab).
//   chain:   y = gelu(x * a + b) * c elementwise. Fused: x read once, y written
//            once. Unfused (three kernels): each kernel reads and writes the
//            whole array, three times the bytes.
//   rmsnorm: y[r][j] = x[r][j] / sqrt(mean_j x[r][j]^2 + eps) * w[j]. Fused: x
//            read once, w once, y written once. Unfused (two passes): the second
//            pass reads x again, plus an fp32 per row in between.
//   gemm_bias_gelu: Y = gelu(A B + bias), A [m,k], B [k,n], bias [n], Y [m,n]: the
//            GEMM's model (gemm/model.hpp) plus the bias read and the epilogue's
//            FLOPs. Unfused (GEMM, then a bias kernel, then a GELU kernel): the
//            bias kernel reads Y and writes it, the GELU kernel reads and writes
//            it again: four more passes over Y.
//   gemm_bare: Y = A B, the GEMM's model; nothing to fuse.
// FLOPs are nominal (GELU counted as 10, whatever the instruction mix). The peer
// of chain and rmsnorm, cudaMemcpy, copies x; that of the GEMMs, cuBLASLt, does
// the variant's work.
#pragma once
#include "gemm/model.hpp"
#include "workload.hpp"

namespace roofline::fusion {

inline constexpr double kChainFlopsPerElement = 13;  // multiply, add, GELU (10), multiply
inline constexpr double kBiasGeluFlopsPerElement = 11;  // add, GELU (10)
inline constexpr double kRowScaleBytes = 4;  // the unfused rmsnorm's fp32 per row

inline Workload chain_work(double n, double element_bytes) {
    return {kChainFlopsPerElement * n, element_bytes * 2 * n};
}
inline Workload chain_unfused_work(double n, double element_bytes) {
    return {kChainFlopsPerElement * n, 3 * element_bytes * 2 * n};
}
inline Workload chain_peer_work(double n, double element_bytes) { return {0, 2.0 * n * element_bytes}; }

inline Workload rmsnorm_work(double rows, double cols, double element_bytes) {
    return {4 * rows * cols, element_bytes * (2 * rows * cols + cols)};
}
inline Workload rmsnorm_unfused_work(double rows, double cols, double element_bytes) {
    // pass 1 reads x and writes a float per row; pass 2 reads x, w and the floats, writes y
    return {4 * rows * cols, element_bytes * (3 * rows * cols + cols) + 2 * kRowScaleBytes * rows};
}
inline Workload rmsnorm_peer_work(double rows, double cols, double element_bytes) {
    return {0, 2.0 * (rows * cols) * element_bytes};
}

inline Workload gemm_bare_work(double m, double n, double k, double element_bytes) {
    return gemm::work_of(m, n, k, element_bytes);
}
inline Workload gemm_bias_gelu_work(double m, double n, double k, double element_bytes) {
    auto w = gemm::work_of(m, n, k, element_bytes);
    w.flops += kBiasGeluFlopsPerElement * m * n;
    w.bytes += n * element_bytes;  // bias
    return w;
}
inline Workload gemm_bias_gelu_unfused_work(double m, double n, double k, double element_bytes) {
    auto w = gemm_bias_gelu_work(m, n, k, element_bytes);
    w.bytes += 2 * (2 * m * n * element_bytes);  // bias pass and GELU pass: each reads and writes Y
    return w;
}

}  // namespace roofline::fusion
