// FLOP and byte model of lab 06's row sums: x [rows][cols] read once, one fp32
// sum written per row; one addition per element. The peer, cudaMemcpy, copies
// half of x, so that it moves (reads plus writes) as many bytes as the sums read.
#pragma once
#include "workload.hpp"

namespace roofline::reduction {

inline constexpr double kSumBytes = 4;  // each row's sum is an fp32

inline Workload row_sum_work(double rows, double cols, double element_bytes) {
    return {rows * cols, element_bytes * rows * cols + kSumBytes * rows};
}
inline Workload row_sum_peer_work(double rows, double cols, double element_bytes) {
    return {0, element_bytes * rows * cols};
}

}  // namespace roofline::reduction
