#include "own_work.hpp"

#include <fmt/format.h>

#include <algorithm>

#include <cstdlib>
#include <map>
#include <memory>

namespace roofline {

namespace {

std::string readable(const std::string& name) {
    std::string out = demangle(name);
    return out.size() > 120 ? out.substr(0, 117) + "..." : out;
}

std::string list(const std::vector<std::string>& names) {
    std::string out;
    for (std::size_t i = 0; i < names.size() && i < 3; ++i) out += (i ? ", " : "") + readable(names[i]);
    if (names.size() > 3) out += fmt::format(" and {} more", names.size() - 3);
    return out;
}

}  // namespace

OwnWorkVerdict judge_own_work(const protocol::Result& result, const SymbolCheck& kernel_file_symbols,
                              const std::vector<std::string>& allow_calls) {
    OwnWorkVerdict verdict;
    std::vector<std::string> foreign, other_stream;
    long long copies = 0, memsets = 0;
    std::string unwatched;
    std::vector<const protocol::WatchedLaunches*> watched;  // every check's launch, then the replay's
    for (const auto& check : result.checks) {
        if (check.launched) watched.push_back(&*check.launched);
    }
    if (result.replay) watched.push_back(&result.replay->launched);
    for (const auto* launched : watched) {
        if (!launched->watched) {
            unwatched = launched->error.empty() ? "no reason given" : launched->error;
            continue;
        }
        for (const auto& [name, count] : launched->kernels) {
            if (!kernel_file_symbols.defines_kernel(name) && std::find(foreign.begin(), foreign.end(), name) == foreign.end())
                foreign.push_back(name);
        }
        for (const auto& [name, count] : launched->other_stream_kernels) {
            if (std::find(other_stream.begin(), other_stream.end(), name) == other_stream.end())
                other_stream.push_back(name);
        }
        copies += launched->copies;
        memsets += launched->memsets;
    }
    if (!unwatched.empty()) {
        verdict.note = "the run-time check of what the kernel file launched did not run (" + unwatched +
                       "); the link-time check did";
    }
    if (!foreign.empty()) {
        verdict.outcome = Outcome::forbidden_call;
        verdict.message = fmt::format(
            "the GPU ran {} kernel(s) that the kernel file does not define: {} (a library's, or one reached through a "
            "function pointer): the timed work must be the kernel file's own",
            foreign.size(), list(foreign));
        return verdict;
    }
    const struct {
        long long count;
        const char* family;
        const char* what;
    } library_work[] = {{copies, "cudaMemcpy", "cudaMemcpy copies"}, {memsets, "cudaMemset", "cudaMemset calls"}};
    for (const auto& work : library_work) {
        if (work.count > 0 && !call_allowed(allow_calls, work.family)) {
            verdict.outcome = Outcome::forbidden_call;
            verdict.message = fmt::format("the launch function made {} {}; this lab does not allow them (lab.yaml "
                                          "allow_calls): the work must be a kernel of yours",
                                          work.count, work.what);
            return verdict;
        }
    }
    if (result.peer_launched && result.peer_launched->watched) {
        std::vector<std::string> inside;
        for (const auto& [name, count] : result.peer_launched->kernels) {
            if (kernel_file_symbols.defines_kernel(name)) inside.push_back(name);
        }
        if (!inside.empty()) {
            verdict.outcome = Outcome::forbidden_call;
            verdict.message = fmt::format("the peer's run launched the kernel file's own kernel(s) {}: the yardstick "
                                          "must be the library alone",
                                          list(inside));
            return verdict;
        }
    }
    if (!other_stream.empty()) {
        verdict.outcome = Outcome::incorrect;
        verdict.message = fmt::format(
            "launched {} on a stream other than the one it was given (the legacy default stream, when `stream` is "
            "left out of <<<grid, block, shared, stream>>>): it races the checks and the timer; launch everything "
            "on `stream`",
            list(other_stream));
    }
    return verdict;
}

std::optional<ReplayComparison> compare_replay(const protocol::Result& graded, const protocol::Result& watched) {
    if (!graded.timing || !watched.replay) return std::nullopt;
    const double timed = graded.timing->variant.median_s, replayed = watched.replay->median_s;
    if (!(timed > 0) || !(replayed > 0)) return std::nullopt;  // NaN too
    ReplayComparison comparison;
    comparison.launches = watched.replay->launches;
    comparison.timed_median_s = timed;
    comparison.watched_median_s = replayed;
    if (comparison.timed_median_s * kTimedFasterLimit < comparison.watched_median_s) {
        comparison.refused = true;
        comparison.message = fmt::format(
            "timed, a launch took {:.4g} us; the same launches replayed while the GPU's work was recorded took "
            "{:.4g} us, {:.1f}x longer (more than {:g}x): the kernel did less work while it was timed than while it "
            "could be seen",
            comparison.timed_median_s * 1e6, comparison.watched_median_s * 1e6,
            comparison.watched_median_s / comparison.timed_median_s, kTimedFasterLimit);
    }
    return comparison;
}

}  // namespace roofline
