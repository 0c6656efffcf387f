// The kernel is in ../gemm_bias_gelu_fused.cuh, with its design notes; the open rung's reference
// (kernels/08_open_gemm_bias_gelu.cu) is the same design.
#include "../gemm_bias_gelu_fused.cuh"

ROOFLINE_GEMM_BIAS_GELU_VARIANT(gemm_bias_gelu_fused, gemm_bias_gelu_fused);
ROOFLINE_GEMM_BIAS_GELU_VARIANT(gemm_bias_gelu_fused_k512, gemm_bias_gelu_fused);  // at 8192 x 8192 x 512
