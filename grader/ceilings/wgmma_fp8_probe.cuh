// The FP8 wgmma ceiling (sm_90a; wgmma_fp8_probe.cu): e4m3 wgmma.m64n256k32 from shared
// memory in a loop, nothing from global memory. The probe runs it on compute capability
// 9.0 only and reports it beside the datasheet's FP8 figure.
#pragma once
#include <cuda_runtime.h>

namespace roofline::ceilings {

inline constexpr int kWgmmaFp8Iterations = 4096;               // k-tiles of 128 per warpgroup
inline constexpr double kWgmmaFp8Flops = 2.0 * 64 * 256 * 32;  // one m64n256k32

// Launches `blocks` blocks of `warpgroups` (2 or 3) warpgroups; the sink is never written.
void launch_wgmma_fp8(int warpgroups, int blocks, cudaStream_t stream, float* sink);
// FLOPs of one such launch.
double wgmma_fp8_flops(int warpgroups, int blocks);

}  // namespace roofline::ceilings
