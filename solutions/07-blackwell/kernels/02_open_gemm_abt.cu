// The open rung's reference design: rung 1's (TMA into a 4-stage mbarrier ring, one
// thread issues tcgen05.mma 128x256x16, the fp32 accumulator in tensor memory, a tcgen05.ld epilogue);
// the kernel is in ../tcgen05_gemm.cuh.
// The debrief (labs/07-blackwell/debrief/) compares it with the other designs the lesson offers.
#include "../tcgen05_gemm.cuh"

ROOFLINE_GEMM_ABT_VARIANT(open_tcgen05_gemm, launch_tcgen05);
