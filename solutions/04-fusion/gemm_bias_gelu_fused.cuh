// The design of solutions/04-fusion/kernels/07_gemm_bias_gelu_fused.cu, shared with the lab's open rung
// (kernels/08_open_gemm_bias_gelu.cu), which reuses it as our reference; each file registers it under its own name.
#pragma once
// Rung 7: bias and GELU in the GEMM's epilogue.
// What changes against rung 6: no bias kernel and no GELU kernel. The given
// main loop (roofline/gemm_with_epilogue.cuh, a WMMA GEMM) hands each pair
// of fp32 accumulators to this epilogue, which adds the bias, applies the GELU
// and rounds once before the one store the GEMM makes anyway. Y reaches memory
// once; rung 6's four extra passes over it (8mn bytes) are gone.
//
// Prediction at 4096^3 on the H200:
//   bytes: rung 6 moves 4 x 32 MiB = 134 MB more than this rung, ~32 us at
//     ~4.2 TB/s (plus two launches), on top of rung 5's ~302 us: ~335 us.
//   epilogue: not free, because the block has the SM to itself (one block per
//     SM) and the tensor cores idle while it runs. 16.7 M outputs x 2 SFU ops
//     (ex2, rcp) at 16 per clock per SM = ~16 k clocks per SM, ~8 us at ~1.9
//     GHz; the ~8 other instructions per element issue alongside (~4 us) and
//     the bias loads hit L1. So ~302 + ~8 = ~310 us: ~1.03x rung 5 and ~1.08x
//     faster than rung 6. With the accurate tanhf (~25 instructions) the
//     epilogue would cost ~15 us instead.
// At this size fusion can save at most the ~32 us of extra passes, ~10% of the
// GEMM: the GEMM is compute-bound and fusion removes no FLOPs.
// At 8192 x 8192 x 512 (gemm_bias_gelu_fused_k512; predicted before its first run,
// labs/04-fusion/README.md): the GEMM is 68.7 GFLOP and the passes move 537 MB,
// ~131 us beside a bare GEMM of ~240 us with the given WMMA loop; this epilogue
// costs 67.1 M x 2 SFU ops, ~33 us. Fused ~280 us against ~375 us: ~1.34x.
// Measured on the H200 (2026-12-01, results/2026-12-01-h200-runs51-54.md and
// results/2026-12-01-h200-runs57-60.md):
// bare 259-261 us, three kernels 401-402 us, fused 310 us: 1.30x. The epilogue cost ~51 us,
// not ~33: with one block per SM nothing runs under it.
// With the retiled main loop (128 x 128 blocks, two per SM, at K <= 1024; 128 x 256 above) and
// the bias through __ldg (below), graded on the H200 (results/2026-12-01-h200-runs66-69.md):
// 8192 x 8192 x 512: bare 224.9 us, three kernels 367.4 us, fused 245.4 us: 1.494x (goal 1.4x;
// predicted ~1.55x for the retiled loop, whose bare GEMM came out ~20% slower than predicted).
// The epilogue now costs ~21 us, under its ~33 us of SFU work: the other block's mma hides
// part of it. 4096^3: bare 335.8 us, three 369.8 us, fused 344.4 us: 1.073x (goal 1.05x;
// predicted ~1.055x); the epilogue ~9 us, as with rung 9's loop.
//
// Measured on the H200 with rung 9's main loop, the given one until 2026-11-30
// (2026-11-29, results/2026-11-29-h200-lab03-gemm-epilogue.txt):
// 310.6-312.6 us against 303.0-303.7 us for rung 5 (1.03x) and 336.7-337.4 us
// for rung 6 (1.08x faster). The epilogue's ~8 us follow the SFU count: with
// tanh.approx.f32 (one SFU op) it took ~5 us, with the accurate tanhf ~10 us.
// tanh.approx is not used here for the reason given in rung 2: its error is
// relative to tanh, and 1 + tanh(u) cancels for negative v.
#include "roofline/contract/fusion.cuh"
#include "given/gemm_with_epilogue.cuh"
#include "kernels/gelu_fast.cuh"  // the GELU of rung 2, beside the kernel files

#include <cstddef>

namespace {

// Y[row][col .. col + 1] = gelu((A B)[row][col .. col + 1] + bias[col .. col + 1]).
struct BiasGeluEpilogue {
    __nv_bfloat16* Y;
    const __nv_bfloat16* bias;
    int N;  // row length of Y and length of bias
    // v0 = (A B)[row][col], v1 = (A B)[row][col + 1], fp32; col is even.
    __device__ void operator()(int row, int col, float v0, float v1) const {
        // One aligned 32-bit load for both bias values, through the read-only path (__ldg): the
        // compiler may then assume no store of this kernel changes bias, so it neither orders the
        // load after the previous pair's store to Y (a plain load might alias it: each pair
        // would wait out a load latency, the old epilogue's largest stall) nor repeats it for
        // rows that share col; it can load once and reuse. Measured against the plain load in the
        // same run (scripts/probes/given_gemm_variants.cu, results/2026-12-01-h200-runs66-69.md):
        // 11% less time at 8192 x 8192 x 512, 2% at 4096^3 (predicted 2-4% and none).
        const float2 b = __bfloat1622float2(__ldg(reinterpret_cast<const __nv_bfloat162*>(bias + col)));
        *reinterpret_cast<__nv_bfloat162*>(Y + std::size_t(row) * N + col) =
            __floats2bfloat162_rn(gelu_fast(v0 + b.x), gelu_fast(v1 + b.y));
    }
};

void gemm_bias_gelu_fused(const __nv_bfloat16* A, const __nv_bfloat16* B, const __nv_bfloat16* bias,
                          __nv_bfloat16* Y, int M, int N, int K, cudaStream_t stream) {
    roofline::fusion::launch_gemm_with_epilogue(A, B, M, N, K, BiasGeluEpilogue{Y, bias, N}, stream);
}

}  // namespace

