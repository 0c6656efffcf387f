// The kernel is in ../decode_attention_ring.cuh, with its design notes; the open rung's
// reference (kernels/02_open_decode_attention.cu) is the same design.
#include "../decode_attention_ring.cuh"

ROOFLINE_DECODE_ATTENTION_VARIANT(decode_attention_b1_4k, ring::decode_attention);
ROOFLINE_DECODE_ATTENTION_VARIANT(decode_attention_b1_32k, ring::decode_attention);
ROOFLINE_DECODE_ATTENTION_VARIANT(decode_attention_b16_4k, ring::decode_attention);
ROOFLINE_DECODE_ATTENTION_VARIANT(decode_attention_b16_32k, ring::decode_attention);
ROOFLINE_DECODE_ATTENTION_VARIANT(decode_attention_b64_32k, ring::decode_attention);
