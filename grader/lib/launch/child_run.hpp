// A lab executable run as a child process: its own process group, a wall-clock timeout, stdout
// and stderr together in one file, of which the end and the last stage it named are kept.
#pragma once
#include <filesystem>
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

}  // namespace roofline
