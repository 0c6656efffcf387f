// The run-time half of "the timed work is the kernel file's own": the lab program
// reports every kernel, copy and memset the GPU ran while a variant's launch function
// ran (harness/launch_watch.hpp), and this decides, against the names the kernel
// file's objects define (symbol_check.hpp), what that work was:
//  - a kernel the kernel file does not define (cuBLAS's, one reached through a
//    function pointer or dlsym) or a copy/memset lab.yaml does not allow: forbidden_call;
//  - a kernel of the kernel file's inside the peer's run: forbidden_call (the yardstick
//    must be the library alone);
//  - a kernel on a stream other than the one given (the legacy default stream, when
//    the `stream` argument was forgotten): incorrect, since it races the harness.
#pragma once
#include "lab_result.hpp"
#include "lab_run.hpp"
#include "symbol_check.hpp"

#include <optional>
#include <set>
#include <string>
#include <vector>

namespace roofline {

struct OwnWorkVerdict {
    Outcome outcome = Outcome::correct;
    std::string message;
    std::string note;  // the run-time check could not run (CUPTI unavailable): said, not refused
};

// `result`: the lab program's answer for one variant (a watch job's, in a grading).
OwnWorkVerdict judge_own_work(const protocol::Result& result, const SymbolCheck& kernel_file_symbols,
                              const std::vector<std::string>& allow_calls);

// The timed launches against the same launches replayed under the watch (warm L2, each
// kernel recorded: slower, never much faster). Timed ones far faster than watched ones did
// less work when timed than when they could be seen: refused (timing_refused).
inline constexpr double kTimedFasterLimit = 3.0;
struct ReplayComparison {
    long long launches = 0;
    double timed_median_s = 0, watched_median_s = 0;
    bool refused = false;
    std::string message;
};
// Nothing when the graded answer has no timing or the watched one no replay, or either median is not positive.
std::optional<ReplayComparison> compare_replay(const protocol::Result& graded, const protocol::Result& watched);

}  // namespace roofline
