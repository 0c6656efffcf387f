// The reference step: the same decode step as the server's, from the same inputs (the step's
// tokens and positions, the same weights and the same cache before the step), computed another
// way: cuBLAS's cublasGemmEx (not the server's cuBLASLt plans or its CUDA-core GEMM) with fp32
// outputs, the residual stream, norms, RoPE (angles in double), SwiGLU and attention in fp32
// (an exact three-pass softmax, not the server's online one), rounding to bf16 only where a GEMM
// reads its input and where the cache stores a key or value.
//
// The tolerance, derived: the server rounds to bf16 where the reference keeps fp32 at 11 points
// per layer (normed input, QKV, RoPE'd q and k, attention output, O output, residual, normed
// input, gate/up, SwiGLU, down output, residual) and once more at the final norm: 353 roundings.
// A bf16 rounding's relative error is uniform within +-2^-9, so its RMS is 2^-9 / sqrt(3) =
// 1.13e-3. Independent errors carried by the residual stream (gain about 1: pre-norm residual
// layers with variance-preserving random weights) add in quadrature: sqrt(353) x 1.13e-3 = 0.021
// relative to the logits' norm. The check allows 0.05, about 2.4x that, for the layers'
// amplification; a wrong RoPE, a wrong cache position or a wrong head mapping is an error of
// order 1. A greedy token must match the reference's wherever the reference's top two logits
// differ by more than 2 x 0.05 x the row's RMS (closer calls may go either way).
#pragma once
#include "model.cuh"

#include <cublas_v2.h>

namespace server {

constexpr double kLogitTolerance = 0.05;
// kv_cache: fp8. The server and the reference round the same new key or value to e4m3, each from
// its own value (the server's carries the bf16 errors above, up to kLogitTolerance relative). The
// two roundings differ by one e4m3 step (2^-3 relative at most) where an error of relative size e
// crosses a rounding boundary, which it does with probability about e / 2^-3: the RMS difference
// is about sqrt(e x 2^-3) = sqrt(0.05 / 8) = 0.079. The new K and V are checked within 0.08. The
// logits keep 0.05: both sides read the same cache, and the new position is one of the many.
constexpr double kFp8KvTolerance = 0.08;

struct StepCheck {
    double logits_rel_err = 0;  // ||server - reference|| / ||reference|| over the batch's logits
    double kv_rel_err = 0;      // the same over the K and V the step wrote into the cache, all layers
    int token_mismatches = 0;   // rows whose token differs where the margin says it must not
    int close_calls = 0;        // rows too close to call (not counted against the server)
    double kv_tolerance = kLogitTolerance;  // kFp8KvTolerance with an fp8 cache
    bool passed() const { return logits_rel_err <= kLogitTolerance && kv_rel_err <= kv_tolerance && token_mismatches == 0; }
};

class Reference {
public:
    explicit Reference(Server& server);
    ~Reference();
    // Before the server's step: keep its inputs (tokens, positions).
    void save_inputs();
    // After it: the reference step, then the comparison.
    StepCheck check_step();

private:
    Server& s_;
    cublasHandle_t handle_ = nullptr;
    float *x_ = nullptr, *qkv_ = nullptr, *attn_ = nullptr, *out_ = nullptr, *gate_up_ = nullptr, *logits_ = nullptr,
          *scores_ = nullptr, *row_stats_ = nullptr;
    bf16 *gemm_in_ = nullptr, *kv_new_ = nullptr;
    double* sums_ = nullptr;
    int *tokens_ = nullptr, *positions_ = nullptr;
};

}  // namespace server
