// A child program that answers queries: how the checker of a CPU-graded part
// (layout_check_main.cpp) asks the student's runner (layout_runner_main.cpp, linked with
// the student's files) for its answers, so that the verdict is decided in a process the
// student's code never runs in.
//
//   requests   the child's stdin, one line each
//   replies    the child's file descriptor 3, one line each; its stdout is /dev/null, so
//              nothing the student's code prints can be taken for a reply
//   stderr     a file the checker names (or the checker's own stderr)
//
// The child gets a session of its own (a kill ends it with what it started), a small
// environment (PATH only, beside what a sandbox sets), limits on its memory and on what
// it writes, and one deadline for the whole conversation. Everything it says is
// untrusted: an early exit, a signal, a reply past the deadline or longer than the limit
// ends as a RunnerFailure naming what happened, never as a crash of the checker.
#pragma once
#include <chrono>
#include <deque>
#include <filesystem>
#include <string>
#include <vector>

#include <sys/types.h>

namespace cpu_part {

// Deliberately not a std::exception: the checker catches the student's exceptions as
// std::exception (they are the student's "threw"); this one must pass through that.
struct RunnerFailure {
    std::string outcome;  // crashed, hang, bad_reply
    std::string message;  // what happened, in words ("your code crashed (Segmentation fault, signal 11)")
};

struct ChildLimits {
    double timeout_s = 60;                     // the whole conversation, from the start
    long long memory_bytes = 2LL << 30;        // RLIMIT_AS of the child (and of what it starts)
    long long file_bytes = 1LL << 20;          // RLIMIT_FSIZE: its stderr file, anything it writes
    std::size_t reply_bytes = 1 << 20;         // the longest reply line taken
    // The argv starts a sandbox (bwrap) that hands the program's death by signal N
    // back as exit 128 + N: name such an exit as the signal.
    bool signal_as_exit_code = false;
};

class QueryChild {
public:
    // Starts argv[0] (a path) with argv. Throws std::runtime_error when it cannot start.
    QueryChild(const std::vector<std::string>& argv, const std::filesystem::path& stderr_file, ChildLimits limits);
    ~QueryChild();  // ends the child and everything it started
    QueryChild(const QueryChild&) = delete;
    QueryChild& operator=(const QueryChild&) = delete;

    // Requests about to be asked, in order (lines without their newlines): written while
    // the replies are awaited, so that the child answers them back to back instead of one
    // round trip each. ask() must then ask them in this order.
    void send_ahead(const std::vector<std::string>& requests);

    // Sends one request (unless it was sent ahead) and returns its reply line. Replies
    // come in the order of the requests, so a failure is the failure of the first request
    // not answered. Throws RunnerFailure when the child ends, hangs past the deadline or
    // says too much; std::logic_error when the request is not the one sent ahead.
    std::string ask(const std::string& request);

    // Closes the child's stdin and replies (a runner ends at the end of its requests), gives
    // it a moment, then ends whatever is left. After this, nothing of it runs.
    void finish();

    long long replies() const { return replies_; }

private:
    std::string next_reply();
    [[noreturn]] void fail_ended(const std::string& how);
    [[noreturn]] void fail_hang();
    std::string ended_text(int status) const;
    bool reap(std::chrono::steady_clock::time_point until, int& status);
    void kill_all();

    pid_t pid_ = -1;
    int request_fd_ = -1, reply_fd_ = -1;
    std::string out_;               // request bytes to write, from out_sent_ on
    std::size_t out_sent_ = 0;
    bool out_broken_ = false;       // the child stopped reading: what it has is all it gets
    std::deque<std::string> ahead_; // requests sent ahead, not yet asked
    std::string buffer_;            // reply bytes read past the last newline
    ChildLimits limits_;
    std::filesystem::path stderr_file_;
    std::chrono::steady_clock::time_point deadline_;
    long long replies_ = 0;
};

}  // namespace cpu_part
