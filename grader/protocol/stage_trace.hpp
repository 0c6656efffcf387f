// Elapsed time, as the grader and the lab program both measure it. With ROOFLINE_TRACE set,
// `roofline grade` and the lab program print the moment each of their stages begins, in
// milliseconds since the process started, to stderr: where a grading's own time goes (under
// `roofline batch` the grader's land in each submission's grade-stderr.txt).
#pragma once
#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace roofline {

inline double seconds_since(std::chrono::steady_clock::time_point began) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
}

inline void trace_stage(std::string_view stage) {
    static const bool enabled = std::getenv("ROOFLINE_TRACE") != nullptr;
    static const auto began = std::chrono::steady_clock::now();
    if (!enabled) return;
    fmt::print(stderr, "[trace {:9.2f} ms] {}\n", 1000 * seconds_since(began), stage);
}

}  // namespace roofline
