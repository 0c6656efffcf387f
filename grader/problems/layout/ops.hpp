// The layout family's op names and shape keys, written once: the grader's descriptor
// (family.cpp) and the checker (layout_check.cpp) read them, and lab.yaml's `op:` and `shape:` must spell them so.
#pragma once
#include <array>

namespace roofline::layout::ops {

// The parts of lab 05's layout library, one op each; no shapes (graded on the CPU, never timed).
inline constexpr std::array<const char*, 7> parts{"evaluate",       "coalesce", "compose",   "complement",
                                                  "logical_divide", "swizzle",  "wavefronts"};

}  // namespace roofline::layout::ops
