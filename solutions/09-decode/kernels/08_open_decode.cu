// The open rung's reference design: rung 7's six kernels (norms, rotary, residuals
// and silu folded into the GEMVs; split-K attention and its combine), replayed as a CUDA graph;
// the kernel is in ../decode_fused.cuh.
// The debrief (labs/09-decode/debrief/) compares it with the other designs the lesson offers.
#include "../decode_fused.cuh"

ROOFLINE_DECODE_LAYER_VARIANT(open_decode_h4096, step);
