// The fast GELU of lab 04's solutions (rung 2, the fused chain, derives it; rung 7,
// the GEMM epilogue, reuses it): 0.5 v (1 + tanh(u)) = v - v / (1 + e), with
// e = exp(2u) = 2^(v (K1 + K2 v^2)): two SFU ops (ex2, rcp). e = inf (v large)
// gives v, e = 0 (v very negative) gives exactly 0, as the reference's tanhf does.
#pragma once

__device__ __forceinline__ float ex2_approx(float x) {
    float y;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
}

__device__ __forceinline__ float rcp_approx(float x) {
    float y;
    asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
}

__device__ __forceinline__ float gelu_fast(float v) {
    constexpr float kLog2e = 1.4426950408889634f;
    constexpr float kK1 = 2.0f * kLog2e * 0.7978845608028654f;  // 2 log2(e) sqrt(2/pi)
    constexpr float kK2 = kK1 * 0.044715f;
    const float e = ex2_approx(v * fmaf(kK2, v * v, kK1));
    return fmaf(-v, rcp_approx(1.0f + e), v);
}
