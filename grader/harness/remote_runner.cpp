#include "remote_runner.hpp"

#include "wire_call.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <chrono>
#include <cstring>
#include <thread>

namespace roofline::harness {

namespace {
// A request that is not a launch (a buffer sent or taken back) is answered at once.
constexpr double kQuickAnswerS = 60;
}  // namespace

RemoteRunner& RemoteRunner::instance() {
    static RemoteRunner runner;
    return runner;
}

void RemoteRunner::start(const std::vector<std::string>& argv, double limit_s) {
    int sockets[2];
    if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sockets) != 0)
        throw RunnerGone(std::string("socketpair: ") + std::strerror(errno), 0, 0);
    const pid_t judge = ::getpid();
    pid_t pid = ::fork();
    if (pid < 0) throw RunnerGone(std::string("fork: ") + std::strerror(errno), 0, 0);
    if (pid == 0) {
        ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // the runner never outlives its judge
        if (::getppid() != judge) ::_exit(127);
        ::dup2(sockets[1], kRunnerSocketFd);  // dup2 clears close-on-exec on the copy
        ::close(STDIN_FILENO);                // the judge's job lines are not the runner's to read
        ::open("/dev/null", O_RDONLY);
        std::vector<char*> args;
        for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
        args.push_back(const_cast<char*>("--runner"));
        args.push_back(nullptr);
        ::execv(args[0], args.data());
        std::fprintf(stderr, "roofline judge: cannot start the runner %s: %s\n", args[0], std::strerror(errno));
        ::_exit(127);
    }
    ::close(sockets[1]);
    pid_ = pid;
    channel_ = Channel(sockets[0]);
    nlohmann::json first;
    try {
        first = channel_.receive(limit_s);
    } catch (const ChannelError& e) {
        gone(std::string("the lab program ended before it said hello (") + e.what() + ")");
    }
    if (first.contains("error")) {
        const std::string message = first["error"].is_string() ? first["error"].get<std::string>() : first.dump();
        if (first.value("kind", std::string()) == "no_device") {
            // No GPU where it runs: the job's answer, not the program's failure.
            reap();
            throw RunnerFailure("no_device", message);
        }
        gone("the lab program could not start: " + message);
    }
    if (!first.contains("hello") || !first["hello"].is_object() || !first["hello"].contains("variants") ||
        !first["hello"]["variants"].is_array())
        gone("the lab program's first message is not a hello: " + first.dump().substr(0, 200));
    hello_ = first["hello"];
}

void RemoteRunner::gone(const std::string& why) {
    auto [exit_code, signal] = reap();
    throw RunnerGone(why, exit_code, signal);
}

std::pair<int, int> RemoteRunner::reap() {
    // Give a runner that is dying a moment to finish, so that its end can be named.
    int status = 0, exit_code = 0, signal = 0;
    for (int i = 0; i < 50 && pid_ > 0; ++i) {
        pid_t done = ::waitpid(pid_, &status, WNOHANG);
        if (done == pid_) {
            if (WIFEXITED(status)) exit_code = WEXITSTATUS(status);
            if (WIFSIGNALED(status)) signal = WTERMSIG(status);
            pid_ = -1;
            break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    if (pid_ > 0) {
        ::kill(pid_, SIGKILL);
        ::waitpid(pid_, &status, 0);
        pid_ = -1;
    }
    return {exit_code, signal};
}

nlohmann::json RemoteRunner::ask(const nlohmann::json& request, double limit_s, int fd) {
    if (pid_ <= 0) throw RunnerGone("the lab program is not running", 0, 0);
    nlohmann::json answer;
    try {
        channel_.send(request, fd);
        answer = channel_.receive(limit_s);
    } catch (const ChannelError& e) {
        gone(std::string("the lab program stopped answering (") + e.what() + ")");
    }
    if (answer.contains("error")) {
        const std::string kind = answer.value("kind", std::string("bad_call"));
        const std::string message = answer["error"].is_string() ? answer["error"].get<std::string>() : answer.dump();
        if (kind == "cuda_error" || kind == "hang") {
            // The runner ends after either; reap it so that the next job starts a fresh one.
            reap();
        }
        throw RunnerFailure(kind, message);
    }
    if (answer.value("ok", false) != true) gone("the lab program's answer is neither ok nor an error: " + answer.dump().substr(0, 200));
    return answer;
}

nlohmann::json RemoteRunner::take_pending() {
    auto& pending = PendingCalls::list();
    nlohmann::json calls = pending;
    pending.clear();
    return calls;
}

RunnerLaunch RemoteRunner::launch(const std::string& variant, double launch_timeout_s) {
    return launch_calls(variant, take_pending(), launch_timeout_s);
}

RunnerLaunch RemoteRunner::launch_calls(const std::string& variant, const nlohmann::json& calls,
                                        double launch_timeout_s, bool baseline) {
    const double limit_s = launch_timeout_s > 0 ? launch_timeout_s * std::max<std::size_t>(1, calls.size()) + 30 : 0;
    auto answer = ask({{"op", "launch"}, {"variant", variant}, {"calls", calls}, {"launch_timeout_s", launch_timeout_s},
                       {"baseline", baseline}},
                      limit_s);
    RunnerLaunch launch;
    const auto& events = answer.value("event_s", nlohmann::json::array());
    if (!events.is_array() || events.size() != calls.size())
        gone("the lab program answered " + std::to_string(events.size()) + " event times for " +
             std::to_string(calls.size()) + " launches");
    for (const auto& e : events) {
        if (!e.is_number()) gone("the lab program's event time is not a number: " + e.dump());
        launch.event_s.push_back(e.get<double>());
    }
    launch.legacy_stream_busy = answer.value("legacy_stream_busy", false);
    return launch;
}

void RemoteRunner::export_buffer(long long id, std::size_t bytes, int fd) {
    ask({{"op", "import"}, {"id", id}, {"bytes", bytes}}, kQuickAnswerS, fd);
}

void RemoteRunner::release_buffer(long long id) {
    if (pid_ <= 0) return;
    ask({{"op", "release"}, {"id", id}}, kQuickAnswerS);
}

void RemoteRunner::stop() {
    if (pid_ <= 0) return;
    try {
        channel_.send({{"op", "quit"}});
    } catch (const ChannelError&) {
    }
    int status = 0;
    for (int i = 0; i < 100; ++i) {
        if (::waitpid(pid_, &status, WNOHANG) == pid_) {
            pid_ = -1;
            return;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, &status, 0);
    pid_ = -1;
}

}  // namespace roofline::harness
