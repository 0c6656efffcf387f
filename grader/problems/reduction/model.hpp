// FLOP and byte model of lab 04's row sums: x [rows][cols] bf16 read once, one
// fp32 sum written per row; one addition per element. The peer, cudaMemcpy, copies
// half of x, so that it moves (reads plus writes) as many bytes as the sums read.
#pragma once

namespace roofline::reduction {

struct Work {
    double flops = 0;
    double bytes = 0;
};

inline Work row_sum_work(double rows, double cols) { return {rows * cols, 2.0 * rows * cols + 4.0 * rows}; }
inline Work row_sum_peer_work(double rows, double cols) { return {0, 2.0 * rows * cols}; }

}  // namespace roofline::reduction
