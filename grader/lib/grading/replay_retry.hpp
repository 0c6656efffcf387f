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
#include "gpu_neighbours.hpp"
#include "own_work.hpp"

#include <functional>
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

// Before the second watch, when the first was too slow beside other processes: wait for them
// to leave the GPU, so that the retry is a fair one, but not for long (a grading beside a
// long job must still end). `list` is nvidia-smi's listing now (list_compute_apps), `pause`
// sleeps; both are parameters so that the wait can be checked without a GPU or a clock.
inline constexpr double kFreeGpuWaitS = 10, kFreeGpuPollS = 0.25;
struct FreeGpuWait {
    bool free = false;     // the last listing showed no other process on the grading's GPU
    double waited_s = 0;   // time spent in `pause`
    std::string text;      // for the note or the refusal: what the wait found
};
FreeGpuWait wait_for_free_gpu(const std::function<std::optional<ComputeAppsListing>()>& list,
                              const std::function<void(double)>& pause, double most_s = kFreeGpuWaitS,
                              double poll_s = kFreeGpuPollS);

// `comparisons`: compare_replay's answer for each watch job so far, in order (nothing where it
// had nothing to compare). `neighbours`: the other processes seen on the GPU while a replay was
// too slow (gpu_processes_text; empty: none seen, or nvidia-smi could not say).
//  - the first passes (or has nothing to compare): accepted, no note;
//  - the first fails, no second yet: watch_again;
//  - the first fails, the second passes: accepted, with a note naming both medians;
//  - both fail (or the second has nothing to compare): refused, the message naming both
//    medians and the other processes.
// `wait`: the wait before the second watch, where there was one; the note or the refusal says
// what it found.
ReplayDecision decide_replay(const std::vector<std::optional<ReplayComparison>>& comparisons,
                             const std::string& neighbours, const std::optional<FreeGpuWait>& wait = std::nullopt);

}  // namespace roofline
