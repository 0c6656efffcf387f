// Lab 08's peer: cuDNN's fused attention (the "flash" SDPA forward engines), reached
// through cuDNN's backend graph API, with no cudnn-frontend in between. The graph is the
// one cuDNN's engines recognize as scaled dot-product attention (sdpa_forms.hpp says
// which tensor types and forms, and why):
//
//   S = Q K^T (fp32) -> S * scale -> [causal: row >= column ? S : lowest] -> softmax
//     (max, subtract, exp, sum, log-sum-exp, divide) -> P (bf16) -> O = P V (bf16)
//
// cuDNN fuses it into one kernel; the scores never reach memory. Only the lab 08 program
// links cuDNN (grader/CMakeLists.txt), so the other labs do not need it.
#pragma once
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include "sdpa_forms.hpp"

#include <memory>
#include <string>

namespace roofline::attention {

class CudnnSdpa {
public:
    CudnnSdpa();
    ~CudnnSdpa();
    CudnnSdpa(const CudnnSdpa&) = delete;
    CudnnSdpa& operator=(const CudnnSdpa&) = delete;

    // Tries the forms of sdpa_forms() in order; for each, the engine configurations cuDNN's
    // heuristics offer (mode A, then the fallback list) until one finalizes. Returns an empty
    // string on success, else why not (cuDNN's own words for every form).
    std::string plan(int batch, int heads, int seq, int head_dim, bool causal);
    // The same for one form only (the peer probe's diagnosis).
    std::string plan_form(int batch, int heads, int seq, int head_dim, bool causal, const SdpaForm& form);
    bool planned() const;
    // Runs the planned graph on `stream`; throws std::runtime_error on a cuDNN error.
    void run(const __nv_bfloat16* q, const __nv_bfloat16* k, const __nv_bfloat16* v, __nv_bfloat16* o,
             cudaStream_t stream);
    // "cuDNN 9.14.0, composite graph, ..., engine 8 (heuristics mode A, configuration 1 of 2)": what ran.
    std::string describe() const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace roofline::attention
