// The lessons' diagrams, drawn by code so that their text stays inside the
// picture and a change of layout is one edit here: the files under
// lessons/figures/ are these functions' output (a CPU test compares them).
#pragma once
#include <string>

namespace roofline {

// Lesson 06, section 3: a ring of `stages` shared-memory stages between one
// producer thread (TMA) and the consumers, with each stage's full and empty
// mbarrier, and which stage and parity the first tiles use.
std::string mbarrier_ring_svg(int stages);

// Lesson 06, section 5: a schematic timeline of a warp-specialized pipeline:
// the producer's TMA issues, each ring stage's copy, wait and read, and the
// two consumer warpgroups' MMAs, for `slices` K slices through `stages`
// stages when a copy takes `latency_slots` times as long as one slice's MMAs.
// Not measured: the schedule is computed from those three numbers.
std::string warp_specialized_pipeline_svg(int stages, int slices, double latency_slots);

// Lesson 05, section 8: shared memory as rows of 128 bytes (8 chunks of 16 bytes, 4 banks
// each), without a swizzle and with the 128-byte one (chunk q of row i stored at q ^ (i % 8)),
// each cell labelled with the logical chunk it holds; logical chunk `highlight` is marked in
// every row, so a warp reading that column of chunks sees where its 8 reads land.
std::string swizzle_bank_map_svg(int highlight);

// Lesson 03, section 3: what one warp's load touches in a row-major fp32 matrix whose rows are
// 128-byte lines: rung 1 (threadIdx.x along M) reads one element from each of 32 rows, 32
// lines; rung 2 (threadIdx.x along N) reads 32 neighbours of one row, one line.
std::string coalescing_svg();

// Lesson 07, section 3: one SM's tensor memory, 128 lanes x 512 columns of 32-bit cells: a
// 128 x `accumulator_columns` fp32 accumulator allocated from column 0, the four lane quarters
// and the warps (w % 4) that may read each, and one 32x32b.x32 load of warp `warp` at
// column `load_column` (lane i of the warp gets 32 columns of lane 32 (w % 4) + i).
std::string tmem_lanes_svg(int accumulator_columns, int warp, int load_column);

// Lesson 03, section 2: a thread block's T x T tile of C = A B walks K in `steps` steps of
// T_K: at step `step` it brings A's T x T_K tile and B's T_K x T tile (the same k range of
// each) into shared memory and adds their product into its C tile.
std::string tile_walk_svg(int steps, int step);

// Lesson 03, rung 7 (warp tiling): the 128 x 128 block tile as 4 x 2 warp tiles of 32 x 64,
// and one warp tile as 2 x 2 sub-tiles of 16 x 32, each a 4 x 8 grid of lanes owning 4 x 4
// pieces; lane `lane`'s four pieces (rows {0..3, 16..19} + 4 (lane / 8), columns
// {0..3, 32..35} + 4 (lane % 8)) are marked.
std::string warp_tile_svg(int lane);

}  // namespace roofline
