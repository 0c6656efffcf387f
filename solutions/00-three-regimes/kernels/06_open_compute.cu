// The open rung's reference design: rung 2's (one dependent chain of 512 FMAs per
// thread, one thread per element, 256 threads a block);
// the kernel is in ../compute_chain.cuh.
// The debrief (labs/00-three-regimes/debrief/) compares it with the other designs the lesson offers.
#include "../compute_chain.cuh"

ROOFLINE_FMA_CHAIN_VARIANT(open_compute_fma, chain);
