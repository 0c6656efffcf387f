#include "replay_retry.hpp"

#include <fmt/format.h>

namespace roofline {

namespace {

// "250 us, 25.0x the timed 10 us"
std::string replay_text(const ReplayComparison& c) {
    return fmt::format("{:.4g} us a launch, {:.1f}x the timed {:.4g} us", c.watched_median_s * 1e6,
                       c.watched_median_s / c.timed_median_s, c.timed_median_s * 1e6);
}

}  // namespace

ReplayDecision decide_replay(const std::vector<std::optional<ReplayComparison>>& comparisons,
                             const std::string& neighbours, const std::optional<FreeGpuWait>& wait) {
    ReplayDecision decision;
    if (comparisons.empty() || !comparisons.front() || !comparisons.front()->refused) return decision;
    const auto& first = *comparisons.front();
    if (comparisons.size() < kMostWatches) {
        decision.step = ReplayDecision::Step::watch_again;
        return decision;
    }
    const auto& second = comparisons[1];
    if (second && !second->refused) {
        decision.note = fmt::format(
            "the first watched replay took {} (over the {:g}x limit); watched again, it took {} (within the limit): "
            "the timing stands (the first replay was likely slowed by other work on the GPU{})",
            replay_text(first), kTimedFasterLimit, replay_text(*second),
            neighbours.empty() ? std::string() : fmt::format("; other processes on it: {}", neighbours));
        if (wait) decision.note += " (" + wait->text + ")";
        return decision;
    }
    decision.step = ReplayDecision::Step::refused;
    if (second) {
        decision.message = fmt::format("{}. Watched twice, so that a GPU shared with another process is not taken for "
                                       "it: the first replay took {}, the second {}",
                                       second->message, replay_text(first), replay_text(*second));
    } else {
        decision.message = fmt::format("{}. Watched again, the replay gave no time to compare, so the first stands",
                                       first.message);
    }
    if (!neighbours.empty()) {
        decision.message += fmt::format(". Other processes used the GPU while it was watched: {}; if the kernel is "
                                        "your own honest work, grade it again when the GPU is free",
                                        neighbours);
    }
    if (wait) decision.message += " (" + wait->text + ")";
    return decision;
}

FreeGpuWait wait_for_free_gpu(const std::function<std::optional<ComputeAppsListing>()>& list,
                              const std::function<void(double)>& pause, double most_s, double poll_s) {
    FreeGpuWait wait;
    for (;;) {
        auto listing = list();
        if (!listing) {  // nvidia-smi absent or failing: nothing to wait for that can be seen
            wait.text = "nvidia-smi could not list the GPU's processes, so the grader did not wait";
            return wait;
        }
        auto others = gpu_neighbours({*listing});
        if (others.empty()) {
            wait.free = true;
            wait.text = wait.waited_s > 0
                            ? fmt::format("the grader waited {:.2g} s for the other processes to leave the GPU", wait.waited_s)
                            : std::string("no other process was on the GPU when it was watched again");
            return wait;
        }
        if (wait.waited_s + poll_s > most_s + 1e-9) {
            wait.text = fmt::format("the grader waited {:.2g} s for the GPU to be free, and {} still used it", wait.waited_s,
                                    gpu_processes_text(others));
            return wait;
        }
        pause(poll_s);
        wait.waited_s += poll_s;
    }
}

}  // namespace roofline
