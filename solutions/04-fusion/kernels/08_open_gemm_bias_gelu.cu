// The open rung's reference design: rung 7's (the given main loop of
// roofline/gemm_with_epilogue.cuh, bias and GELU applied to the accumulators before the one store);
// the kernel is in ../gemm_bias_gelu_fused.cuh.
// The debrief (labs/04-fusion/debrief/) compares it with the other designs the lesson offers.
#include "../gemm_bias_gelu_fused.cuh"

ROOFLINE_GEMM_BIAS_GELU_VARIANT(open_gemm_bias_gelu_k512, gemm_bias_gelu_fused);
