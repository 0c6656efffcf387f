// compute-sanitizer's report (memcheck, racecheck, synccheck, initcheck), read into
// findings a student can act on: what went wrong, and where, as file:line, the
// student's own kernel file first. `roofline run --sanitize TOOL` prints the first few.
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace roofline {

struct SanitizerFinding {
    std::string what;                     // "Invalid __global__ write of size 4 bytes"
    std::vector<std::string> locations;   // "kernels/01_copy_naive.cu:12", in the order the report gives them
    std::string detail;                   // the thread and block, or the address, when the report gives them
};

struct SanitizerReport {
    std::vector<SanitizerFinding> findings;
    std::optional<long long> error_count;  // from "ERROR SUMMARY: N errors"; none: the report never finished
};

SanitizerReport parse_sanitizer_output(const std::string& output);

// The finding's location in `kernel_file` (matched by file name), else its first location, else "".
std::string location_in(const SanitizerFinding& finding, const std::string& kernel_file);

// The four tools `--sanitize` takes.
bool is_sanitizer_tool(const std::string& tool);

}  // namespace roofline
