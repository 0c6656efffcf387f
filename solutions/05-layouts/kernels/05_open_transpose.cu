// The open rung's reference design: rung 4's (the TMA loads each 64 x 64 tile into
// shared memory with the 128-byte swizzle; the threads drain it transposed in 16-byte reads);
// the kernel is in ../transpose_tma.cuh.
// The debrief (labs/05-layouts/debrief/) compares it with the other designs the lesson offers.
#include "../transpose_tma.cuh"

ROOFLINE_TRANSPOSE_VARIANT(open_transpose_bf16, launch_tma<__nv_bfloat16>);
