// OUT/summary.md: what an instructor reads after a batch: how many of each
// outcome, the score distribution, a leaderboard by fraction of the roofline,
// the variants timed on a shared GPU, and every failure with its reason.
#pragma once
#include "result.hpp"

#include <string>
#include <vector>

namespace roofline::batch {

struct BatchFacts {
    std::string lab;
    std::uint64_t seed = 0;
    std::string hidden;  // the hidden file, or empty
    std::vector<std::string> not_graded;  // submissions with no result yet (an unfinished slice)
};

// What the instructor should look at before trusting the gradebook, one plain-text line each:
// the submissions graded without a sandbox, and every submission's warnings (a folder that
// is a link, one that holds the same files as another).
std::vector<std::string> class_warnings(const std::vector<SubmissionResult>& results);

// What the "Timed on a shared GPU" part of OUT/summary.md and OUT/report.html says above its list of
// each submission's variants timed beside other processes (result.hpp, SharedGpuNote); the
// part is left out when there are none.
inline const char* kSharedGpuAbout =
    "Other processes used the GPU while these variants were timed (nvidia-smi named them): a time "
    "taken beside another process may be slower than the GPU's own, so a lower performance score "
    "here may be the neighbour's doing. The scores are as measured; the student's Gradescope output "
    "says the GPU was shared, without the processes' names.";

std::string summary_markdown(const BatchFacts& facts, std::vector<SubmissionResult> results);

}  // namespace roofline::batch
