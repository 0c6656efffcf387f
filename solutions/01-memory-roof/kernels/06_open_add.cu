// The open rung's reference design: rung 4's add (16-byte vectors in a grid-stride
// loop over 8 blocks an SM, a scalar tail);
// the kernel is in ../add.cuh.
// The debrief (labs/01-memory-roof/debrief/) compares it with the other designs the lesson offers.
#include "../add.cuh"

ROOFLINE_ADD_VARIANT(open_add_bf16, add<__nv_bfloat16>);
