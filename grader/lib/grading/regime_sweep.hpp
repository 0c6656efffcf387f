// Which regime a kernel is in, read from how its time scales with the input
// (lab 00). Shrink the input 16x: a kernel whose time barely moves is paying a
// fixed cost per launch (overhead-bound); one whose time shrinks with the work
// is bound by whichever roof it sits closer to at the largest size.
#pragma once
#include "roofline.hpp"

#include <string>
#include <vector>

namespace roofline {

struct SweepPoint {
    double n = 0;  // problem size (elements)
    double time_s = 0;
    Workload work;  // at this size
};

struct SweepVerdict {
    Regime regime = Regime::memory;
    double scaling_exponent = 0;  // time ~ n^exponent: ~1 when the work dominates, ~0 when overhead does
    double compute_fraction = 0;  // of the peak, at the largest n
    double memory_fraction = 0;   // of the bandwidth, at the largest n
    std::string reason;           // one sentence
};

// Below this exponent the time "barely moves" with the input: a 16x smaller input
// at most halves the time (16^0.25 = 2).
inline constexpr double kOverheadExponent = 0.25;

// Needs at least two points with different n and positive times; throws std::invalid_argument otherwise.
SweepVerdict classify_sweep(const std::vector<SweepPoint>& points, const Ceiling& ceiling);

}  // namespace roofline
