// The open rung's reference design: rung 9's (a 3-stage cp.async pipeline, swizzled
// shared tiles, 128 x 256 blocks of 64 x 64 warp tiles, mma.sync);
// the kernel is in ../pipelined_gemm.cuh.
// The debrief (labs/03-gemm/debrief/) compares it with the other designs the lesson offers.
#include "../pipelined_gemm.cuh"

ROOFLINE_GEMM_VARIANT(open_gemm, launch_pipelined);
