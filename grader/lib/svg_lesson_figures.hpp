// The lessons' diagrams, drawn by code so that their text stays inside the
// picture and a change of layout is one edit here: the files under
// lessons/figures/ are these functions' output (a CPU test compares them).
#pragma once
#include <string>

namespace roofline {

// Lesson 04, section 3: a ring of `stages` shared-memory stages between one
// producer thread (TMA) and the consumers, with each stage's full and empty
// mbarrier, and which stage and parity the first tiles use.
std::string mbarrier_ring_svg(int stages);

// Lesson 04, section 5: a schematic timeline of a warp-specialized pipeline:
// the producer's TMA issues, each ring stage's copy, wait and read, and the
// two consumer warpgroups' MMAs, for `slices` K slices through `stages`
// stages when a copy takes `latency_slots` times as long as one slice's MMAs.
// Not measured: the schedule is computed from those three numbers.
std::string warp_specialized_pipeline_svg(int stages, int slices, double latency_slots);

}  // namespace roofline
