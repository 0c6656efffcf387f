// The kernel is in ../compute_chain.cuh, with its design notes; the open rung's reference
// (kernels/06_open_compute.cu) is the same design.
#include "../compute_chain.cuh"

ROOFLINE_FMA_CHAIN_VARIANT(compute_fma, chain);
