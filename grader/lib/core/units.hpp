// Human-readable quantities: 137.4 GFLOP, 100.7 MB, 68.72 us, 4.24 TB/s.
#pragma once
#include <string>

namespace roofline {

std::string si(double value, const std::string& unit, int digits = 4);  // 1.374e11 FLOP -> "137.4 GFLOP"
std::string seconds(double s);                                        // picks ns, us, ms or s
// A horizontal bar of `width` cells for value / max_value, with eighth-cell resolution.
std::string bar(double value, double max_value, int width);

}  // namespace roofline
