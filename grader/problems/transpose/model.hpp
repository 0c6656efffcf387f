// FLOP and byte model of lab 09's transpose: x [rows][cols] read once, y [cols][rows]
// written once, no arithmetic. The peer, cudaMemcpy of x into a buffer of the same size,
// moves the same bytes, so the fraction of the peer is the fraction of the copy rate.
#pragma once

namespace roofline::transpose {

struct Work {
    double flops = 0;
    double bytes = 0;
};

inline Work transpose_work(double rows, double cols, double element_bytes) {
    return {0, 2.0 * rows * cols * element_bytes};
}
inline Work transpose_peer_work(double rows, double cols, double element_bytes) {
    return transpose_work(rows, cols, element_bytes);
}

}  // namespace roofline::transpose
