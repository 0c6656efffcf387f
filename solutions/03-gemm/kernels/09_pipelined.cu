// The kernel is in ../pipelined_gemm.cuh, with its design notes; the open rung's reference
// (kernels/10_open_gemm.cu) is the same design.
#include "../pipelined_gemm.cuh"

ROOFLINE_GEMM_VARIANT(r9_pipelined, launch_pipelined);
