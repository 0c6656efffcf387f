// Starting a child process (a lab program for the runner; nvcc or `roofline grade`
// on one submission for the batch) with a wall-clock timeout, resource limits, a
// session of its own (so that a timeout kills everything it started), environment
// overrides and its output in files. Safe to call from several threads at once.
#pragma once
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace roofline {

struct ProcessLimits {
    double timeout_s = 600;           // wall clock; the whole process group is killed past it
    long long cpu_s = 0;              // RLIMIT_CPU; 0: none
    long long file_bytes = 0;         // RLIMIT_FSIZE; 0: none
    bool core_dumps = false;          // RLIMIT_CORE 0 unless true
    // No RLIMIT_AS: the CUDA driver reserves far more virtual memory than it uses.
};

struct ProcessSpec {
    std::vector<std::string> argv;  // argv[0]: a path (not searched on PATH)
    std::filesystem::path work_dir;
    std::filesystem::path output_file;  // stdout, and stderr unless error_file is given
    std::filesystem::path error_file;
    std::map<std::string, std::string> env;  // set ("" value: unset) on top of this process's environment
    ProcessLimits limits;
};

struct ProcessResult {
    int exit_code = -1;  // when it exited
    int signal = 0;      // when a signal ended it
    bool timed_out = false;
    bool started = true;
    bool interrupted = false;  // killed because the batch is stopping
    double wall_s = 0;
    bool ok() const { return !timed_out && signal == 0 && exit_code == 0; }
};

ProcessResult run_process(const ProcessSpec& spec);

// Ctrl-C or SIGTERM (roofline batch): every running child is killed (with what it
// started) and reported as interrupted. Safe to call from a signal handler.
void request_stop();
bool stop_requested();

// The file's last `max_bytes` bytes (the end of a compiler's or program's output).
std::string file_tail(const std::filesystem::path& file, std::size_t max_bytes = 8000);

}  // namespace roofline
