// The kernel is in ../add.cuh, with its design notes; the open rung's reference
// (kernels/06_open_add.cu) is the same design.
#include "../add.cuh"

ROOFLINE_ADD_VARIANT(add_fp32, add<float>);
ROOFLINE_ADD_VARIANT(add_bf16, add<__nv_bfloat16>);
