// Starting a child process (a lab program for the runner; nvcc or `roofline grade`
// on one submission for the batch) with a wall-clock timeout, resource limits, a
// session of its own (so that a timeout kills everything it started), environment
// overrides and its output in files. Safe to call from several threads at once.
#pragma once
#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace roofline {

struct ProcessLimits {
    double timeout_s = 600;           // wall clock; the whole process group is killed past it
    long long cpu_s = 0;              // RLIMIT_CPU; 0: none
    long long file_bytes = 0;         // RLIMIT_FSIZE; 0: none
    bool core_dumps = false;          // RLIMIT_CORE 0 unless true
    // RLIMIT_AS, per process; 0: none. For compilers only: the CUDA driver reserves far
    // more virtual memory than it uses, so a lab program gets none.
    long long memory_bytes = 0;
};

struct ProcessSpec {
    std::vector<std::string> argv;  // argv[0]: a path (not searched on PATH)
    std::filesystem::path work_dir;
    std::filesystem::path output_file;  // stdout, and stderr unless error_file is given
    std::filesystem::path error_file;
    std::map<std::string, std::string> env;  // set ("" value: unset) on top of this process's environment
    ProcessLimits limits;
    // true: a session of its own, which kill_session() ends with everything it started.
    // false: a process group of its own in this process's session, so that whoever
    // kills this session (roofline batch killing a grade) kills it too.
    bool new_session = true;
    // true: the child is sent SIGKILL when this process dies (PR_SET_PDEATHSIG), however it dies.
    // Linux ties it to the thread that started the child: start it from a thread that outlives it
    // (run_process always does: it waits in the thread that started it).
    bool die_with_parent = true;
    bool stdin_pipe = false;  // true: the caller writes to its stdin (RunningProcess::stdin_fd); else /dev/null
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

// Starts it, waits until it ends or its timeout passes, and reports how it ended.
ProcessResult run_process(const ProcessSpec& spec);

// The same in steps, for a child that serves several requests (lab_session.hpp).
struct RunningProcess {
    pid_t pid = -1;
    int stdin_fd = -1;  // with ProcessSpec::stdin_pipe: a socket; write with send(..., MSG_NOSIGNAL)
    std::chrono::steady_clock::time_point began;
    bool running() const { return pid > 0; }
};
RunningProcess start_process(const ProcessSpec& spec);  // pid -1 when fork failed

enum class WaitEnd { ended, done, timed_out, interrupted };
// Waits until the process ends, `done()` turns true (checked every few ms), or
// `deadline`; past the deadline, or on a stop request, it kills the process and
// everything it started. When it has ended (or been killed), `result` says how
// and the RunningProcess is no longer running.
WaitEnd wait_process(RunningProcess& process, std::chrono::steady_clock::time_point deadline,
                     const std::function<bool()>& done, ProcessResult& result);
// Kills the process and its session, reaps it, closes its stdin.
void kill_process(RunningProcess& process);

// Ctrl-C or SIGTERM (roofline batch): every running child is killed (with what it
// started) and reported as interrupted. Safe to call from a signal handler.
void request_stop();
bool stop_requested();

// The file's last `max_bytes` bytes (the end of a compiler's or program's output).
// `name` where a shell would find it on PATH (an executable file); empty when it is not there.
std::filesystem::path find_on_path(const std::string& name);

// `text` as one word for /bin/sh (quoted unless it is plainly safe).
std::string quoted_for_shell(const std::string& text);

std::string file_tail(const std::filesystem::path& file, std::size_t max_bytes = 8000);

}  // namespace roofline
