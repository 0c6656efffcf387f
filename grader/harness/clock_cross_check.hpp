// A second clock the kernel file cannot reach: the GPU's global timer, read by two
// one-thread harness kernels just before the start event and just after the stop
// event of every timed sample (measure.cu). The events' interval must fit inside
// that bracket, which adds only the two small launches' worth of microseconds. A
// kernel file that changed what the events report (it cannot redefine the event
// functions: the link-time check refuses that) would show here as a disagreement.
// Header-only, so that the CPU tests check the rule without a GPU.
#pragma once
#include <fmt/format.h>

#include <optional>
#include <string>
#include <vector>

namespace roofline::harness {

struct ClockCrossCheck {
    double event_median_s = 0;
    double globaltimer_median_s = 0;  // the bracket around the same launches
};

// Why the clocks of target t (named in `names`) disagree beyond what two launches
// explain, or nothing.
inline std::optional<std::string> timing_disagreement(const std::vector<ClockCrossCheck>& checks,
                                                      const std::vector<std::string>& names) {
    constexpr double kSlackS = 10e-6, kShare = 0.97;
    for (std::size_t t = 0; t < checks.size(); ++t) {
        const auto& c = checks[t];
        if (c.globaltimer_median_s <= 0) continue;  // no stamps: a timer that does not tick here
        bool too_short = c.event_median_s < kShare * c.globaltimer_median_s - kSlackS;
        bool too_long = c.event_median_s > c.globaltimer_median_s / kShare + kSlackS;
        if (too_short || too_long) {
            return fmt::format("the {} timing disagrees with the GPU's global timer: CUDA events say {:.4g} us, the "
                               "global timer around the same launches {:.4g} us; something changed what the events "
                               "report, so this timing is refused",
                               t < names.size() ? names[t] : "?", c.event_median_s * 1e6,
                               c.globaltimer_median_s * 1e6);
        }
    }
    return std::nullopt;
}

// The judge's clock against a runner's events (lab_main.cpp, time_remotely): the runner's
// events may say less than the judge's clock around the same batches by a share and a slack
// (back-to-back launches pay a few microseconds each on the host that events do not see) and
// by the judge's own noise (three standard errors of its median: a launch storm bound by the
// host spreads 15-20% a batch on this clock; run 90 refused lab 00's reference at 3.4% over
// its events without it). Beyond that the runner's claim is refused: the two cannot both be
// right. Medians per launch; `judged_median_rse` is the judge's median's relative error.
inline bool judged_clock_refuses(double judged_s, double claimed_s, double judged_median_rse) {
    constexpr double kShare = 0.03, kSlackS = 5e-6;
    return judged_s > claimed_s * (1 + kShare) + kSlackS + 3 * judged_median_rse * judged_s;
}

}  // namespace roofline::harness
