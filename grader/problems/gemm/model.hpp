// FLOP and byte model of GEMM, C[M,N] = A[M,K] B[K,N] (or B given transposed):
// 2MNK FLOPs, a multiply and an add per term; A and B read once and C written
// once, the fewest bytes (a real kernel re-reads tiles through L2). The peer,
// cuBLAS, does the same work. The one GEMM formula: `roofline calc --gemm`,
// the fusion family's GEMMs and the scorer all count with it.
#pragma once
#include "workload.hpp"

namespace roofline::gemm {

// All three matrices `element_bytes` wide.
inline Workload work_of(double m, double n, double k, double element_bytes) {
    return {2.0 * m * n * k, (m * k + k * n + m * n) * element_bytes};
}

}  // namespace roofline::gemm
