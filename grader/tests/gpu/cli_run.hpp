// The `roofline` CLI run as a student runs it, for the GPU tests: its exit code
// and its output (stdout and stderr together).
#pragma once
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>

struct CliRun {
    int exit_code = -1;
    std::string output;
};

inline CliRun run_cli(const std::string& args) {
    // ROOFLINE_TRACE in the tester's environment would mix trace lines into the JSON the
    // tests parse; the tests read the CLI as a student's shell runs it.
    std::string command = "env -u ROOFLINE_TRACE " + std::string(ROOFLINE_CLI) + " " + args + " 2>&1";
    CliRun result;
    FILE* pipe = popen(command.c_str(), "r");
    std::array<char, 4096> buffer{};
    while (auto n = fread(buffer.data(), 1, buffer.size(), pipe)) result.output.append(buffer.data(), n);
    int status = pclose(pipe);
    result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return result;
}
