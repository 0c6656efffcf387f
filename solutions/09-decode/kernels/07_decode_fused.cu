// The kernel is in ../decode_fused.cuh, with its design notes; the open rung's reference
// (kernels/08_open_decode.cu) is the same design.
#include "../decode_fused.cuh"

ROOFLINE_DECODE_LAYER_VARIANT(decode_fused_h512, step);
ROOFLINE_DECODE_LAYER_VARIANT(decode_fused_h4096, step);
