// Before the grader refuses a timing because the watched replay was far slower than the timed
// launches (own_work.hpp, compare_replay), it runs the same watch job once more: another
// process computing on the same GPU (two gradings at once, a shared workstation) slows a
// replay by itself, and an honest kernel must not be refused for it. The decision is the
// grader's, taken here on the comparisons it made; nothing of it runs in the lab program.
//
// A kernel that really does less work when it is timed stays slow in every watched replay
// (it is the watch, not the moment, that it answers to), so the second comparison fails as
// the first did and it is refused as before: the retry costs it nothing but one more watch.
#pragma once
#include "own_work.hpp"

#include <optional>
#include <string>
#include <vector>

namespace roofline {

// How many times a watch job may run for one timing: the first, and one retry.
inline constexpr int kMostWatches = 2;

struct ReplayDecision {
    enum class Step { accepted, watch_again, refused };
    Step step = Step::accepted;
    std::string message;  // refused: why, both replays and the other processes named
    std::string note;     // accepted after a retry: the first replay's slowness, said
};

// `comparisons`: compare_replay's answer for each watch job so far, in order (nothing where it
// had nothing to compare). `neighbours`: the other processes seen on the GPU while a replay was
// too slow (gpu_processes_text; empty: none seen, or nvidia-smi could not say).
//  - the first passes (or has nothing to compare): accepted, no note;
//  - the first fails, no second yet: watch_again;
//  - the first fails, the second passes: accepted, with a note naming both medians;
//  - both fail (or the second has nothing to compare): refused, the message naming both
//    medians and the other processes.
ReplayDecision decide_replay(const std::vector<std::optional<ReplayComparison>>& comparisons,
                             const std::string& neighbours);

}  // namespace roofline
