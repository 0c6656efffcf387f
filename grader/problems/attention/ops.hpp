// The attention family's op names and shape keys, written once: the grader's descriptor
// (family.cpp) and the lab program's registration and shape check (attention_problem.cu) read them, and lab.yaml's `op:` and `shape:` must spell them so.
#pragma once
#include <array>

namespace roofline::attention::ops {

inline constexpr const char* attention = "attention";                // O = softmax(Q K^T / sqrt(d)) V
inline constexpr const char* attention_causal = "attention_causal";  // the same, query i sees keys j <= i
// Q, K, V and O [batch, heads, seq, head_dim], in the order the lab program reads them.
inline constexpr std::array<const char*, 4> sizes{"batch", "heads", "seq", "head_dim"};

}  // namespace roofline::attention::ops
