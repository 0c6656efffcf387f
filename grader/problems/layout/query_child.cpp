#include "query_child.hpp"

#include <fmt/format.h>

#include <fcntl.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace cpu_part {

namespace {

using Clock = std::chrono::steady_clock;

void close_fd(int& fd) {
    if (fd >= 0) ::close(fd);
    fd = -1;
}

// The end of the child's stderr, one line, printable: shown with a crash (a `terminate
// called ...`, an assertion) so that the student sees what their code said last.
std::string stderr_tail(const std::filesystem::path& file) {
    if (file.empty()) return "";
    std::ifstream in(file, std::ios::binary);
    if (!in) return "";
    in.seekg(0, std::ios::end);
    auto size = static_cast<long long>(in.tellg());
    const long long keep = 300;
    in.seekg(size > keep ? size - keep : 0);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    for (auto& c : text) {
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = ' ';
    }
    while (!text.empty() && text.back() == ' ') text.pop_back();
    auto start = text.find_first_not_of(' ');
    return start == std::string::npos ? "" : (size > keep ? "..." : "") + text.substr(start);
}

std::string signal_text(int signal) {
    const char* name = ::strsignal(signal);
    std::string text = fmt::format("{}, signal {}", name ? name : "a signal", signal);
    if (signal == SIGXFSZ) text += ": it wrote past the limit on its output";
    if (signal == SIGXCPU) text += ": it used up its CPU time";
    return text;
}

}  // namespace

QueryChild::QueryChild(const std::vector<std::string>& argv, const std::filesystem::path& stderr_file, ChildLimits limits)
    : limits_(limits), stderr_file_(stderr_file) {
    if (argv.empty()) throw std::runtime_error("no runner to start");
    // A write to a runner that has gone must be an error to report, not the checker's death.
    std::signal(SIGPIPE, SIG_IGN);

    int requests[2], replies[2], exec_status[2];
    if (::pipe2(requests, O_CLOEXEC) != 0 || ::pipe2(replies, O_CLOEXEC) != 0 || ::pipe2(exec_status, O_CLOEXEC) != 0)
        throw std::runtime_error(fmt::format("cannot make pipes for the runner: {}", std::strerror(errno)));
    int null_fd = ::open("/dev/null", O_RDWR | O_CLOEXEC);
    int error_fd = stderr_file.empty() ? -1 : ::open(stderr_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (null_fd < 0 || (!stderr_file.empty() && error_fd < 0))
        throw std::runtime_error(fmt::format("cannot open the runner's output files: {}", std::strerror(errno)));

    // Everything the child needs is made before fork: after it, only system calls.
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    static char path_variable[] = "PATH=/usr/bin:/bin";
    char* environment[] = {path_variable, nullptr};
    auto limit = [](int resource, long long value) {
        rlimit r{static_cast<rlim_t>(value), static_cast<rlim_t>(value)};
        ::setrlimit(resource, &r);
    };

    pid_ = ::fork();
    if (pid_ < 0) throw std::runtime_error(fmt::format("cannot start the runner: {}", std::strerror(errno)));
    if (pid_ == 0) {
        ::setsid();
        // The exec status pipe out of the way of the renumbering below; it closes on exec.
        int status_fd = ::fcntl(exec_status[1], F_DUPFD_CLOEXEC, 64);
        ::dup2(requests[0], 0);
        ::dup2(null_fd, 1);
        if (error_fd >= 0) ::dup2(error_fd, 2);
        if (replies[1] == 3) ::fcntl(3, F_SETFD, 0);  // dup2 onto itself would keep close-on-exec
        else ::dup2(replies[1], 3);
        ::close_range(4, static_cast<unsigned>(status_fd) - 1, 0);  // nothing else of the checker's
        ::close_range(static_cast<unsigned>(status_fd) + 1, ~0U, 0);
        limit(RLIMIT_AS, limits_.memory_bytes);
        limit(RLIMIT_FSIZE, limits_.file_bytes);
        limit(RLIMIT_CORE, 0);
        limit(RLIMIT_CPU, static_cast<long long>(limits_.timeout_s) + 10);
        std::signal(SIGPIPE, SIG_DFL);
        ::execve(args[0], args.data(), environment);
        int error = errno;
        [[maybe_unused]] auto written = ::write(status_fd, &error, sizeof error);
        ::_exit(127);
    }
    deadline_ = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(limits_.timeout_s));
    ::close(requests[0]);
    ::close(replies[1]);
    ::close(exec_status[1]);
    ::close(null_fd);
    if (error_fd >= 0) ::close(error_fd);
    request_fd_ = requests[1];
    reply_fd_ = replies[0];
    int error = 0;
    ssize_t got;
    do got = ::read(exec_status[0], &error, sizeof error);
    while (got < 0 && errno == EINTR);
    ::close(exec_status[0]);
    if (got > 0) {
        kill_all();
        close_fd(request_fd_);
        close_fd(reply_fd_);
        throw std::runtime_error(fmt::format("cannot start the runner {}: {}", argv[0], std::strerror(error)));
    }
    ::fcntl(request_fd_, F_SETFL, O_NONBLOCK);
    ::fcntl(reply_fd_, F_SETFL, O_NONBLOCK);
    // Larger pipes: more requests sent ahead and more replies per wake-up (best effort).
    ::fcntl(request_fd_, F_SETPIPE_SZ, 1 << 20);
    ::fcntl(reply_fd_, F_SETPIPE_SZ, 1 << 20);
}

QueryChild::~QueryChild() {
    if (pid_ > 0) kill_all();
    close_fd(request_fd_);
    close_fd(reply_fd_);
}

void QueryChild::kill_all() {
    if (pid_ <= 0) return;
    ::kill(-pid_, SIGKILL);
    ::kill(pid_, SIGKILL);
    int status;
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
    pid_ = -1;
}

bool QueryChild::reap(Clock::time_point until, int& status) {
    while (pid_ > 0) {
        pid_t done = ::waitpid(pid_, &status, WNOHANG);
        if (done == pid_) {
            ::kill(-pid_, SIGKILL);  // whatever it started and left behind in its session
            pid_ = -1;
            return true;
        }
        if (done < 0 && errno != EINTR) return false;
        if (Clock::now() >= until) return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    return false;
}

std::string QueryChild::ended_text(int status) const {
    int signal = 0, code = -1;
    if (WIFSIGNALED(status)) signal = WTERMSIG(status);
    else if (WIFEXITED(status)) code = WEXITSTATUS(status);
    if (limits_.signal_as_exit_code && code > 128 && code <= 128 + 64) signal = code - 128;
    std::string text;
    if (signal != 0) {
        text = fmt::format("your code crashed ({})", signal_text(signal));
    } else if (replies_ == 0) {
        text = fmt::format("the runner ended (exit {}) before its first answer: a static constructor or exit() in your code?",
                           code);
    } else {
        text = fmt::format("the runner ended (exit {}) in the middle of its answers: did your code call exit()?", code);
    }
    auto said = stderr_tail(stderr_file_);
    if (!said.empty()) text += fmt::format(" (its stderr ended with: {})", said);
    return text;
}

void QueryChild::fail_ended(const std::string& how) {
    int status = 0;
    if (reap(Clock::now() + std::chrono::seconds(2), status)) throw RunnerFailure{"crashed", ended_text(status)};
    kill_all();
    throw RunnerFailure{"bad_reply", fmt::format("the runner {} but kept running; the requests (stdin) and the replies "
                                                 "(file descriptor 3) are the grader's: does your code close or read them?",
                                                 how)};
}

void QueryChild::fail_hang() {
    kill_all();
    throw RunnerFailure{"hang", fmt::format("no answer within {:g} s (lab.yaml timeout_s): an endless loop in your code?",
                                            limits_.timeout_s)};
}

void QueryChild::send_ahead(const std::vector<std::string>& requests) {
    for (const auto& request : requests) {
        out_ += request;
        out_ += '\n';
        ahead_.push_back(request);
    }
}

std::string QueryChild::ask(const std::string& request) {
    if (pid_ <= 0) throw RunnerFailure{"crashed", "the runner is not running"};
    if (!ahead_.empty()) {
        if (ahead_.front() != request)
            throw std::logic_error("checker: asked " + request.substr(0, 80) + " where " + ahead_.front().substr(0, 80) +
                                   " was sent ahead");
        ahead_.pop_front();
    } else {
        out_ += request;
        out_ += '\n';
    }
    return next_reply();
}

std::string QueryChild::next_reply() {
    for (;;) {
        auto newline = buffer_.find('\n');
        if (newline != std::string::npos) {
            std::string reply = buffer_.substr(0, newline);
            buffer_.erase(0, newline + 1);
            // Nothing more was asked than this: more bytes are a reply to no request.
            if (ahead_.empty() && out_sent_ == out_.size() && !buffer_.empty()) {
                kill_all();
                throw RunnerFailure{"bad_reply", "the runner sent more than one reply to one request: the replies (file "
                                                 "descriptor 3) are the grader's; does your code write to it?"};
            }
            ++replies_;
            return reply;
        }
        if (buffer_.size() > limits_.reply_bytes) {
            kill_all();
            throw RunnerFailure{"bad_reply", fmt::format("the runner's reply ran past {} bytes without ending its line: the "
                                                         "replies (file descriptor 3) are the grader's; does your code write to it?",
                                                         limits_.reply_bytes)};
        }
        bool writing = out_sent_ < out_.size() && !out_broken_;
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline_ - Clock::now()).count();
        if (left <= 0) fail_hang();
        pollfd fds[2] = {{reply_fd_, POLLIN, 0}, {request_fd_, POLLOUT, 0}};
        int n = ::poll(fds, writing ? 2 : 1, static_cast<int>(std::min<long long>(left, 200)));
        if (n < 0 && errno != EINTR) fail_ended("could not be waited for");
        if (n == 0) {
            // Ended while something it started holds the replies open: no end of file comes.
            int status;
            if (reap(Clock::now(), status)) throw RunnerFailure{"crashed", ended_text(status)};
        }
        if (n <= 0) continue;
        if (writing && fds[1].revents != 0) {
            ssize_t w = ::write(request_fd_, out_.data() + out_sent_, out_.size() - out_sent_);
            if (w > 0) out_sent_ += static_cast<std::size_t>(w);
            else if (w < 0 && errno != EAGAIN && errno != EINTR) out_broken_ = true;  // its replies still come first
            if (out_sent_ == out_.size()) {
                out_.clear();
                out_sent_ = 0;
            }
        }
        if (fds[0].revents != 0) {
            char chunk[1 << 16];
            ssize_t r = ::read(reply_fd_, chunk, sizeof chunk);
            if (r == 0) fail_ended("closed its replies");
            if (r < 0) {
                if (errno == EAGAIN || errno == EINTR) continue;
                fail_ended("broke its replies");
            }
            buffer_.append(chunk, static_cast<std::size_t>(r));
        }
    }
}

void QueryChild::finish() {
    close_fd(reply_fd_);  // a runner still answering what was sent ahead stops at its next reply
    close_fd(request_fd_);
    int status;
    if (pid_ > 0 && !reap(Clock::now() + std::chrono::seconds(1), status)) kill_all();
}

}  // namespace cpu_part
