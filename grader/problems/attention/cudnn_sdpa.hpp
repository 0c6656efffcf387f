// Lab 07's peer: cuDNN's fused attention (the "flash" SDPA forward engines), reached
// through cuDNN's backend graph API, with no cudnn-frontend in between. The graph is the
// one cuDNN's runtime fusion recognizes as scaled dot-product attention:
//
//   S = Q K^T (fp32) -> S * scale -> [causal: row >= column ? S : lowest] -> softmax
//     (max, subtract, exp, sum, divide; log-sum-exp kept virtual) -> O = P V (bf16)
//
// cuDNN fuses it into one kernel (or a few); the scores never reach memory. Only the
// lab 07 program links cuDNN (grader/CMakeLists.txt), so the other labs do not need it.
#pragma once
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <memory>
#include <string>

namespace roofline::attention {

class CudnnSdpa {
public:
    CudnnSdpa();
    ~CudnnSdpa();
    CudnnSdpa(const CudnnSdpa&) = delete;
    CudnnSdpa& operator=(const CudnnSdpa&) = delete;

    // Builds the graph and picks the first engine cuDNN's heuristics offer that accepts it.
    // Returns an empty string on success, else why not (cuDNN's words for every attempt).
    std::string plan(int batch, int heads, int seq, int head_dim, bool causal);
    bool planned() const;
    // Runs the planned graph on `stream`; throws std::runtime_error on a cuDNN error.
    void run(const __nv_bfloat16* q, const __nv_bfloat16* k, const __nv_bfloat16* v, __nv_bfloat16* o,
             cudaStream_t stream);
    // "cuDNN 9.14.0 (engine 3 of 8)": what ran.
    std::string describe() const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace roofline::attention
