// The kernel is in ../tcgen05_gemm.cuh, with its design notes; the open rung's reference
// (kernels/02_open_gemm_abt.cu) is the same design.
#include "../tcgen05_gemm.cuh"

ROOFLINE_GEMM_ABT_VARIANT(tcgen05_gemm, launch_tcgen05);
