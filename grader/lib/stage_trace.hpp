// With ROOFLINE_TRACE set, `roofline grade` prints the moment each of its stages begins, in
// milliseconds since the process started, to stderr: where a grading's own time goes (under
// `roofline batch` it lands in each submission's grade-stderr.txt).
#pragma once
#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace roofline {

inline void trace_stage(std::string_view stage) {
    static const bool enabled = std::getenv("ROOFLINE_TRACE") != nullptr;
    static const auto began = std::chrono::steady_clock::now();
    if (!enabled) return;
    auto ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - began).count();
    fmt::print(stderr, "[trace {:9.1f} ms] {}\n", ms, stage);
}

}  // namespace roofline
