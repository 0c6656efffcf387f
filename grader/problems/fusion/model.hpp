// FLOP and byte model of lab 03's fusion problems, fused and unfused.
//   chain:   y = gelu(x * a + b) * c elementwise, bf16 in and out. Fused: x read
//            once, y written once. Unfused (three kernels): each kernel reads and
//            writes the whole array, three times the bytes.
//   rmsnorm: y[r][j] = x[r][j] / sqrt(mean_j x[r][j]^2 + eps) * w[j], bf16. Fused:
//            x read once, w once, y written once. Unfused (two passes): the
//            second pass reads x again, plus a float per row in between.
//   gemm_bias_gelu: Y = gelu(A B + bias), bf16, A [m,k], B [k,n], bias [n], Y [m,n].
//            Fused: A, B and bias read once, Y written once. Unfused (GEMM, then a
//            bias kernel, then a GELU kernel): the GEMM writes Y, the bias kernel
//            reads Y and bias and writes Y, the GELU kernel reads and writes Y:
//            four more passes over Y (8mn bytes in bf16).
//   gemm_bare: Y = A B, the same GEMM without the epilogue; nothing to fuse.
// FLOPs are nominal (GELU counted as 10, whatever the instruction mix).
#pragma once
#include <stdexcept>
#include <string>
#include <string_view>

namespace roofline::fusion {

inline constexpr float kRmsNormEps = 1e-6f;
inline constexpr double kChainFlopsPerElement = 13;  // multiply, add, GELU (10), multiply
inline constexpr double kBiasGeluFlopsPerElement = 11;  // add, GELU (10)

struct Work {
    double flops = 0;
    double bytes = 0;
};

inline Work chain_work(double n) { return {kChainFlopsPerElement * n, 2.0 * 2 * n}; }
inline Work chain_unfused_work(double n) { return {kChainFlopsPerElement * n, 3 * 2.0 * 2 * n}; }

inline Work rmsnorm_work(double rows, double cols) { return {4 * rows * cols, 2.0 * (2 * rows * cols + cols)}; }
inline Work rmsnorm_unfused_work(double rows, double cols) {
    // pass 1 reads x and writes a float per row; pass 2 reads x, w and the floats, writes y
    return {4 * rows * cols, 2.0 * (3 * rows * cols + cols) + 2 * 4 * rows};
}

inline Work gemm_bare_work(double m, double n, double k) { return {2 * m * n * k, 2.0 * (m * k + k * n + m * n)}; }
inline Work gemm_bias_gelu_work(double m, double n, double k) {
    return {2 * m * n * k + kBiasGeluFlopsPerElement * m * n, 2.0 * (m * k + k * n + n + m * n)};
}
inline Work gemm_bias_gelu_unfused_work(double m, double n, double k) {
    auto w = gemm_bias_gelu_work(m, n, k);
    w.bytes += 2.0 * (2 * m * n) + 2.0 * (2 * m * n);  // bias pass and GELU pass: each reads and writes Y
    return w;
}

}  // namespace roofline::fusion
