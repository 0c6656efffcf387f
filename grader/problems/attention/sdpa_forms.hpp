// The forms of cuDNN's fused-attention graph that lab 08's peer tries, in order, until one
// gets an engine (cudnn_sdpa.cpp). Host logic only, so that the CPU tests can check the
// order without cuDNN.
//
// What cuDNN's SDPA ("flash") engines match, from NVIDIA's cudnn-frontend (the composite
// SDPA node and its softmax node) and cuDNN's "fused flash attention fprop" support notes:
//   - Q [b,h,s,d], K^T as [b,h,d,s] (K's strides swapped), V [b,h,s,d], O [b,h,s,d]: bf16,
//     the last stride 1, d a multiple of 8 (up to 256 on Hopper), any sequence length;
//   - S = Q K^T in fp32, S * scale (a by-value fp32 scalar), the causal mask, then the
//     softmax spelled out: max, subtract, exp, sum, log and add into the log-sum-exp
//     ("stats"), divide; every virtual tensor fp32 except one:
//   - P, the softmax's output and the second matmul's A operand, is virtual in the I/O
//     type (bf16): "the backend takes bmm2's A type as the I/O type". The first peer built
//     P in fp32, and cuDNN 9.14 refused every engine configuration for it (H200, run 37);
//   - the stats are virtual for inference, or written to memory ([b,h,s,1] fp32) as a
//     training step would, for its backward pass;
//   - the causal mask: row and column indices (GEN_INDEX on axes 2 and 3, int32), row >=
//     column (CMP_GE into booleans), BINARY_SELECT(score, lowest float, keep).
// cuDNN 9.13.1 added a single SDPA forward operation (CUDNN_BACKEND_OPERATION_SDPA_FWD_
// DESCRIPTOR) that takes Q, K, V, O and the scale directly; masks reach it only through a
// score subgraph, which needs cuDNN 9.21, so here it serves the plain (non-causal) peer only.
#pragma once

#include <string>
#include <vector>

namespace roofline::attention {

struct SdpaForm {
    bool unified = false;           // the one SDPA_FWD operation instead of the composite graph
    bool stats_in_memory = false;   // log-sum-exp written out (training) instead of virtual (inference)
    bool int32_mask_index = true;   // causal mask's row/column indices in int32 (else fp32)
    bool probs_in_io_type = true;   // P in bf16 before P V (else fp32, the form cuDNN refused)

    std::string name() const {
        if (unified) return std::string("unified SDPA_FWD operation") + (stats_in_memory ? " with stats" : "");
        std::string text = std::string("composite graph, ") + (stats_in_memory ? "stats in memory" : "stats virtual") +
                           ", P in " + (probs_in_io_type ? "bf16" : "fp32");
        return text;
    }
    std::string name(bool causal) const {
        return name() + (causal && !unified ? std::string(", mask indices in ") + (int32_mask_index ? "int32" : "fp32")
                                            : std::string());
    }
};

// The first cuDNN version with the unified SDPA forward operation.
constexpr int kUnifiedSdpaVersion = 91301;

// The forms to try for one graph, the most likely first: the frontend's inference form,
// then its training form, then (plain only) the unified operation, then the causal mask
// with fp32 indices. `diagnose` appends the fp32-P forms, which no cuDNN 9 engine is
// known to take, so that a probe shows whether P's type was the cause.
inline std::vector<SdpaForm> sdpa_forms(bool causal, int cudnn_version, bool diagnose = false) {
    std::vector<SdpaForm> forms;
    for (bool int32_index : {true, false}) {
        if (!causal && !int32_index) break;  // the index type matters to the mask only
        for (bool stats : {false, true}) forms.push_back({false, stats, int32_index, true});
        if (!causal && int32_index && cudnn_version >= kUnifiedSdpaVersion) {
            forms.push_back({true, false, true, true});
            forms.push_back({true, true, true, true});
        }
    }
    if (diagnose) {
        for (bool stats : {false, true}) forms.push_back({false, stats, true, false});
    }
    return forms;
}

}  // namespace roofline::attention
