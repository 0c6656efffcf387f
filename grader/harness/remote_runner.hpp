// The judge's handle on its runner: the lab program, holding the student's code, started
// as a child with --runner (inside the sandbox when the grader runs under one) and spoken
// to over a socket (runner_channel.hpp). The judge sends it buffers and batches of calls;
// it answers with "done" and its own event times, which the judge treats as a claim.
#pragma once
#include "runner_channel.hpp"

#include <sys/types.h>

#include <nlohmann/json.hpp>

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace roofline::harness {

// The runner ended, or broke the protocol; `exit_code`/`signal` say how it ended when it did.
struct RunnerGone : std::runtime_error {
    RunnerGone(const std::string& what, int exit_code, int signal)
        : std::runtime_error(what), exit_code(exit_code), signal(signal) {}
    int exit_code = 0, signal = 0;
};

// The runner said a launch failed: kind "cuda_error", "hang" or "bad_call".
struct RunnerFailure : std::runtime_error {
    RunnerFailure(std::string kind, const std::string& what) : std::runtime_error(what), kind(std::move(kind)) {}
    std::string kind;
};

struct RunnerLaunch {
    std::vector<double> event_s;  // the runner's own events around each call
    bool legacy_stream_busy = false;
};

class RemoteRunner {
public:
    static RemoteRunner& instance();

    // Starts `argv` (its last element the lab program, then --runner is added) with the
    // socket as fd 3, and waits for its hello. Throws RunnerGone when it dies first.
    void start(const std::vector<std::string>& argv, double limit_s);
    bool started() const { return pid_ > 0; }
    const nlohmann::json& hello() const { return hello_; }

    // Sends the calls the trampolines recorded (wire_call.hpp) as one request and waits.
    RunnerLaunch launch(const std::string& variant, double launch_timeout_s);
    // The calls recorded so far, taken (so that a timed batch sends calls made before its clock).
    static nlohmann::json take_pending();
    // Sends `calls` as one request and waits. `baseline`: the same request, answered the same
    // way (its calls read, its events recorded), with one empty kernel in place of the
    // launches: the fixed costs of a request (the socket both ways, the runner's wait, the
    // switch of the GPU between the two processes' contexts), which the judge's clock subtracts.
    RunnerLaunch launch_calls(const std::string& variant, const nlohmann::json& calls, double launch_timeout_s,
                              bool baseline = false);

    void export_buffer(long long id, std::size_t bytes, int fd);
    void release_buffer(long long id);
    void stop();

private:
    nlohmann::json ask(const nlohmann::json& request, double limit_s, int fd = -1);
    // Waits a moment for a dying runner, else kills it: its exit code and signal.
    std::pair<int, int> reap();
    [[noreturn]] void gone(const std::string& why);

    Channel channel_;
    pid_t pid_ = -1;
    nlohmann::json hello_;
};

}  // namespace roofline::harness
