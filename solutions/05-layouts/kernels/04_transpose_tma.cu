// The kernel is in ../transpose_tma.cuh, with its design notes; the open rung's reference
// (kernels/05_open_transpose.cu) is the same design.
#include "../transpose_tma.cuh"

ROOFLINE_TRANSPOSE_VARIANT(transpose_tma_fp32, launch_tma<float>);
ROOFLINE_TRANSPOSE_VARIANT(transpose_tma_bf16, launch_tma<__nv_bfloat16>);
