// What a kernel must do, counted: its FLOPs and the fewest bytes it must move
// through device memory. Every FLOP and byte model returns one
// (grader/problems/*/model.hpp); the roofline (roofline.hpp) turns it into floors.
#pragma once

namespace roofline {

struct Workload {
    double flops = 0;  // floating-point operations the algorithm must do
    double bytes = 0;  // fewest bytes it must move through device memory
};

}  // namespace roofline
