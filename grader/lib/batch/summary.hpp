// OUT/summary.md: what an instructor reads after a batch: how many of each
// outcome, the score distribution, a leaderboard by fraction of the roofline,
// and every failure with its reason.
#pragma once
#include "batch/result.hpp"

#include <string>
#include <vector>

namespace roofline::batch {

struct BatchFacts {
    std::string lab;
    std::uint64_t seed = 0;
    std::string hidden;  // the hidden file, or empty
    std::vector<std::string> not_graded;  // submissions with no result yet (an unfinished slice)
};

std::string summary_markdown(const BatchFacts& facts, std::vector<SubmissionResult> results);

}  // namespace roofline::batch
