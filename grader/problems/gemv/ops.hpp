// The gemv family's op names and shape keys, written once: the grader's descriptor
// (family.cpp), the lab program's registrations and shape checks (gemv_problem.cu,
// decode_layer_problem.cu) and the model (model.hpp) read them, and lab.yaml's `op:` and
// `shape:` must spell them so.
#pragma once
#include <array>

namespace roofline::gemv::ops {

inline constexpr const char* gemv = "gemv";                  // y = W x, W in bf16
inline constexpr const char* gemv_int8 = "gemv_int8";        // W in int8 with an fp32 scale per row
inline constexpr const char* gemv_fp8 = "gemv_fp8";          // W in fp8 e4m3 with an fp32 scale per row
inline constexpr const char* gemv_batched = "gemv_batched";  // Y = X W^T, m rows of x
inline constexpr const char* decode_layer = "decode_layer";  // one decoder layer at batch 1
// The sizes, in the order the lab program reads them: y[n] = W[n,k] x[k]; Y[m,n] = X[m,k] W[n,k]^T;
// the decoder layer's hidden size, heads, FFN width and cached positions.
inline constexpr std::array<const char*, 2> nk{"n", "k"};
inline constexpr std::array<const char*, 3> mnk{"m", "n", "k"};
inline constexpr std::array<const char*, 4> layer{"hidden", "heads", "ffn", "cache"};

}  // namespace roofline::gemv::ops
