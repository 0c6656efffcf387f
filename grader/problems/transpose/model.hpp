// FLOP and byte model of lab 05's transpose: x [rows][cols] read once, y [cols][rows]
// written once, no arithmetic. The peer, cudaMemcpy of x into a buffer of the same size,
// moves the same bytes, so the fraction of the peer is the fraction of the copy rate.
#pragma once
#include "workload.hpp"

namespace roofline::transpose {

inline Workload transpose_work(double rows, double cols, double element_bytes) {
    return {0, 2.0 * rows * cols * element_bytes};
}
inline Workload transpose_peer_work(double rows, double cols, double element_bytes) {
    return transpose_work(rows, cols, element_bytes);
}

}  // namespace roofline::transpose
