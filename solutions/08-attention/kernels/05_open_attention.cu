// The open rung's reference design: rung 4's (FlashAttention-3 style: a TMA producer
// warpgroup, two wgmma consumer warpgroups, P fed to wgmma from registers, causal blocks longest first);
// the kernel is in ../warp_specialized_attention.cuh.
// The debrief (labs/08-attention/debrief/) compares it with the other designs the lesson offers.
#include "../warp_specialized_attention.cuh"

ROOFLINE_ATTENTION_CAUSAL_VARIANT(open_attention_causal, fa3_attention_launch);
