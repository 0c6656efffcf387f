// The kernel is in ../wgmma_tma_store.cuh, with its design notes; the open rung's reference
// (kernels/13_open_gemm_abt.cu) is the same design.
#include "../wgmma_tma_store.cuh"

ROOFLINE_GEMM_ABT_VARIANT(wgmma_tma_store_4096, launch_gemm_wgmma_tma_store);
ROOFLINE_GEMM_ABT_VARIANT(wgmma_tma_store_8192, launch_gemm_wgmma_tma_store);
