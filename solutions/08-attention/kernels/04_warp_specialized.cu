// The kernel is in ../warp_specialized_attention.cuh, with its design notes; the open rung's reference
// (kernels/05_open_attention.cu) is the same design.
#include "../warp_specialized_attention.cuh"

ROOFLINE_ATTENTION_VARIANT(warp_specialized, fa3_attention_launch);
ROOFLINE_ATTENTION_CAUSAL_VARIANT(warp_specialized_causal, fa3_attention_launch);
ROOFLINE_ATTENTION_VARIANT(warp_specialized_16k, fa3_attention_launch);
ROOFLINE_ATTENTION_CAUSAL_VARIANT(warp_specialized_causal_16k, fa3_attention_launch);
