// Lesson 06, section 7's figure: one block of lab 06's persistent wgmma GEMM over
// time, drawn from the intervals in an overlap timeline (overlap_timeline.hpp).
// One of the lessons' diagrams (svg_lesson_figures.hpp), in a file of its own
// because it draws data rather than a schematic.
#pragma once
#include "overlap_timeline.hpp"

#include <string>

namespace roofline {

// Two panels of three lanes each (producer, consumer 0, consumer 1), one bar per
// interval of block `block`, waits and work in different colours:
//   the start: from the block's first stamp through the first 12 K slices of its
//     first tile (fewer if a tile has fewer);
//   steady state: 6 slices either side of the block's first change of tile, with the
//     epilogue between them (the middle 12 slices of the first tile if it has one tile).
// Time runs left to right in units of one steady-state K slice (the median time between
// consumer 0's successive MMA issues within a tile), the same scale in both panels, so
// the picture shows the pipeline's shape and not the kernel's speed. A panel spans
// consumer 0's loop iterations for its slices (each: wait for slice k, issue it, wait for
// slice k - 1's MMAs); the other lanes are shown over the same time, their bars clipped. Throws InputError if the block has no consumer 0 intervals or fewer
// than two K slices in a tile.
std::string overlap_timeline_svg(const OverlapTimeline& timeline, int block);

}  // namespace roofline
