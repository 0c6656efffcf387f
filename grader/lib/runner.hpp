// Runs a lab executable as a child process: its own process group, a
// wall-clock timeout, stdout and stderr kept in files. The child reports
// through a JSON result file; a hang, a signal or a missing result is turned
// into an outcome that names what happened and at which stage.
#pragma once
#include "grade_outcome.hpp"
#include <nlohmann/json.hpp>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace roofline {

struct ChildRun {
    int exit_code = -1;     // when it exited normally
    int signal = 0;         // when a signal ended it
    bool timed_out = false;
    double wall_s = 0;
    std::string output_tail;  // the last lines of its stdout and stderr
    std::string last_stage;   // the last "roofline-stage:" line it printed
};

// Runs `argv` (argv[0] is the program path) with `timeout_s`; kills the whole
// session on timeout (process.hpp). Never throws for the child's failures.
ChildRun run_child(const std::vector<std::string>& argv, double timeout_s, const std::filesystem::path& work_dir);

// From a lab program's output: the last "roofline-stage:" line ("start-up" if
// none), and the last `lines` lines.
std::string last_stage_in(const std::string& output);
std::string tail_lines(const std::string& text, int lines);



struct LabRun {
    Outcome outcome = Outcome::harness_error;
    std::string message;  // one line a student can act on
    ChildRun child;
    nlohmann::json result;  // the child's JSON result (empty when it died first)
};

// Interprets a finished child: its result file, exit status and stages.
LabRun interpret(const ChildRun& child, const std::filesystem::path& result_file, const std::string& variant,
                 double timeout_s);

// `cmake --build` of one target; returns the compiler's output on failure.
struct BuildResult {
    bool ok = false;
    bool compiler_ran = false;  // false: the build folder is not a CMake build; `output` says why
    std::string output;
};
BuildResult build_target(const std::filesystem::path& build_dir, const std::string& target);

}  // namespace roofline
