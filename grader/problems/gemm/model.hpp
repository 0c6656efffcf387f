// FLOP and byte model of GEMM: 2MNK FLOPs; A and B read once and C written
// once (the fewest bytes; a real kernel re-reads tiles through L2). The peer,
// cuBLAS, does the same work.
#pragma once

namespace roofline::gemm {

struct Work {
    double flops = 0;
    double bytes = 0;
};

inline Work work_of(double m, double n, double k, double in_bytes, double out_bytes) {
    return {2 * m * n * k, (m * k + k * n) * in_bytes + m * n * out_bytes};
}

}  // namespace roofline::gemm
