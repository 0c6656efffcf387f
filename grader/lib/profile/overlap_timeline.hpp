// Lesson 06's overlap timeline: what the producer thread and the two consumer
// warpgroups of lab 06's persistent wgmma GEMM did, interval by interval, inside
// one block. scripts/probes/lab06_overlap_timeline.cu measures it on a Hopper GPU
// and prints it as CSV; this reads that CSV (or a synthetic one of the same form)
// for the figure that svg_lesson_figures.cpp draws.
//
// The CSV: comment lines start with '#', and one of them must be "# source: ..."
// (measured where and when, or that the numbers are synthetic); then the header
//   block,role,event,tile,k_slice,stage,begin_ns,end_ns
// and one row per interval. Roles and their events:
//   producer             wait_empty, issue
//   consumer0, consumer1 wait_full, mma_issue, mma_wait, epilogue
// tile counts the block's own tiles from 0; k_slice is -1 for an epilogue.
#pragma once
#include <filesystem>
#include <string>
#include <vector>

namespace roofline {

enum class OverlapRole { producer, consumer0, consumer1 };
enum class OverlapEvent { wait_empty, issue, wait_full, mma_issue, mma_wait, epilogue };

const char* overlap_role_name(OverlapRole role);
const char* overlap_event_name(OverlapEvent event);

struct OverlapInterval {
    int block = 0;
    OverlapRole role = OverlapRole::producer;
    OverlapEvent event = OverlapEvent::issue;
    int tile = 0, k_slice = 0, stage = 0;
    double begin_ns = 0, end_ns = 0;
};

struct OverlapTimeline {
    std::string source;  // the "# source:" line's text
    std::vector<OverlapInterval> intervals;  // in file order

    // The intervals of one block, and of one role in it (in file order, which is time order).
    std::vector<OverlapInterval> of(int block) const;
    std::vector<OverlapInterval> of(int block, OverlapRole role) const;
    // The K slices per tile (the largest k_slice + 1).
    int k_slices() const;
};

// Reads the CSV; `file` names it in errors. Throws InputError (file:line, what, the fix) for a
// missing source line or header, an unknown role or event, an event of the wrong role, a bad
// number, an interval that ends before it begins, or a role's interval that starts before the
// previous one of the same block and role ended (one thread's stamps are in program order).
OverlapTimeline read_overlap_timeline(const std::string& text, const std::filesystem::path& file);

}  // namespace roofline
