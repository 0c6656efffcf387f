#include "process.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

extern char** environ;

namespace roofline {

namespace {

std::atomic<bool> stopping{false};

std::vector<std::string> child_environment(const std::map<std::string, std::string>& overrides) {
    std::vector<std::string> env;
    for (char** e = environ; *e; ++e) {
        std::string entry = *e;
        auto key = entry.substr(0, entry.find('='));
        if (!overrides.count(key)) env.push_back(entry);
    }
    for (const auto& [key, value] : overrides) {
        if (!value.empty()) env.push_back(key + "=" + value);
    }
    return env;
}

// Every process left in the child's session: the lab programs `roofline grade`
// starts sit in process groups of their own, but stay in its session.
void kill_session(pid_t session) {
    std::error_code error;
    for (const auto& entry : std::filesystem::directory_iterator("/proc", error)) {
        auto name = entry.path().filename().string();
        if (name.find_first_not_of("0123456789") != std::string::npos) continue;
        std::ifstream stat(entry.path() / "stat");
        std::string line;
        if (!std::getline(stat, line)) continue;
        auto close = line.rfind(')');  // the command name may hold spaces
        if (close == std::string::npos) continue;
        std::istringstream fields(line.substr(close + 2));
        std::string state;
        long parent = 0, group = 0, sid = 0;
        fields >> state >> parent >> group >> sid;
        if (sid == session) ::kill(static_cast<pid_t>(std::stol(name)), SIGKILL);
    }
}

void set_limit(int resource, rlim_t value) {
    rlimit limit{value, value};
    ::setrlimit(resource, &limit);
}

}  // namespace

RunningProcess start_process(const ProcessSpec& spec) {
    RunningProcess process;
    // Everything the child needs is made before fork: between fork and exec in a
    // threaded program only async-signal-safe calls are allowed.
    std::vector<std::string> env = child_environment(spec.env);
    std::vector<char*> argv, envp;
    for (const auto& a : spec.argv) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    for (const auto& e : env) envp.push_back(const_cast<char*>(e.c_str()));
    envp.push_back(nullptr);
    std::string work_dir = spec.work_dir.string(), output = spec.output_file.string();
    std::string errors = spec.error_file.empty() ? output : spec.error_file.string();
    const auto& limits = spec.limits;
    int pipe_ends[2] = {-1, -1};
    // A socket rather than a pipe: the caller writes with MSG_NOSIGNAL, so a child that
    // died between two requests is an EPIPE, not a SIGPIPE.
    if (spec.stdin_pipe && ::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pipe_ends) != 0) return process;

    process.began = std::chrono::steady_clock::now();
    const pid_t parent = ::getpid();
    pid_t pid = ::fork();
    if (pid == 0) {
        if (spec.die_with_parent) {
            // Killed when this process dies, even by SIGKILL, which runs none of its cleanup: a
            // `roofline grade` whose batch was killed must not go on grading (and writing into the
            // batch's folder) on its own. Each generation does the same, so the chain ends together.
            ::prctl(PR_SET_PDEATHSIG, SIGKILL);
            if (::getppid() != parent) ::_exit(126);  // the parent died before the line above
        }
        if (spec.new_session) ::setsid();  // so that everything it starts can be killed
        else ::setpgid(0, 0);
        int fd = ::open(output.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (fd >= 0) ::dup2(fd, STDOUT_FILENO);
        if (errors != output) fd = ::open(errors.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (fd >= 0) ::dup2(fd, STDERR_FILENO);
        int input = pipe_ends[0] >= 0 ? pipe_ends[0] : ::open("/dev/null", O_RDONLY);
        if (input >= 0) ::dup2(input, STDIN_FILENO);
        if (!work_dir.empty() && ::chdir(work_dir.c_str()) != 0) ::_exit(126);
        if (limits.cpu_s > 0) set_limit(RLIMIT_CPU, rlim_t(limits.cpu_s));
        if (limits.file_bytes > 0) set_limit(RLIMIT_FSIZE, rlim_t(limits.file_bytes));
        if (!limits.core_dumps) set_limit(RLIMIT_CORE, 0);
        if (limits.memory_bytes > 0) set_limit(RLIMIT_AS, rlim_t(limits.memory_bytes));
        ::execve(argv[0], argv.data(), envp.data());
        const char message[] = "cannot start the program (execve failed)\n";
        ssize_t ignored = ::write(STDERR_FILENO, message, sizeof(message) - 1);
        (void)ignored;
        ::_exit(127);
    }
    if (pipe_ends[0] >= 0) ::close(pipe_ends[0]);
    if (pid < 0) {
        if (pipe_ends[1] >= 0) ::close(pipe_ends[1]);
        return process;
    }
    process.pid = pid;
    process.stdin_fd = pipe_ends[1];
    return process;
}

namespace {
// After the child is reaped: ends what it left running, fills in `result`.
void finish(RunningProcess& process, int status, ProcessResult& result) {
    kill_session(process.pid);  // anything it left running: in its session ...
    ::kill(-process.pid, SIGKILL);  // ... or in its process group (ProcessSpec::new_session false)
    result.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - process.began).count();
    if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
    if (WIFSIGNALED(status)) result.signal = WTERMSIG(status);
    if (process.stdin_fd >= 0) ::close(process.stdin_fd);
    process.stdin_fd = -1;
    process.pid = -1;
}

void kill_and_finish(RunningProcess& process, ProcessResult& result) {
    int status = 0;
    kill_session(process.pid);
    ::kill(-process.pid, SIGKILL);
    ::waitpid(process.pid, &status, 0);
    finish(process, status, result);
}
}  // namespace

WaitEnd wait_process(RunningProcess& process, std::chrono::steady_clock::time_point deadline,
                     const std::function<bool()>& done, ProcessResult& result) {
    // Polled: a short job is answered within ~1/16 of its own time, a long one within 5 ms.
    const auto began = std::chrono::steady_clock::now();
    while (true) {
        int status = 0;
        pid_t reaped = ::waitpid(process.pid, &status, WNOHANG);
        if (reaped == process.pid || (reaped < 0 && errno != EINTR)) {
            // A child that wrote its answer and then exited still answered.
            bool answered = done && done();
            finish(process, status, result);
            return answered ? WaitEnd::done : WaitEnd::ended;
        }
        if (done && done()) return WaitEnd::done;
        if (stopping) {
            result.interrupted = true;
            kill_and_finish(process, result);
            return WaitEnd::interrupted;
        }
        if (std::chrono::steady_clock::now() > deadline) {
            result.timed_out = true;
            kill_and_finish(process, result);
            return WaitEnd::timed_out;
        }
        auto waited = std::chrono::steady_clock::now() - began;
        std::this_thread::sleep_for(std::clamp<std::chrono::steady_clock::duration>(
            waited / 16, std::chrono::microseconds(100), std::chrono::milliseconds(5)));
    }
}

void kill_process(RunningProcess& process) {
    if (!process.running()) return;
    ProcessResult ignored;
    kill_and_finish(process, ignored);
}

ProcessResult run_process(const ProcessSpec& spec) {
    ProcessResult result;
    auto process = start_process(spec);
    if (!process.running()) {
        result.started = false;
        return result;
    }
    auto deadline = process.began + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                        std::chrono::duration<double>(spec.limits.timeout_s));
    wait_process(process, deadline, nullptr, result);
    return result;
}

void request_stop() { stopping = true; }
bool stop_requested() { return stopping; }

std::filesystem::path find_on_path(const std::string& name) {
    const char* search = std::getenv("PATH");
    std::istringstream folders(search ? search : "/usr/bin:/bin");
    std::string folder;
    while (std::getline(folders, folder, ':')) {
        if (folder.empty()) continue;
        auto candidate = std::filesystem::path(folder) / name;
        std::error_code unreadable;  // a PATH folder this user may not look into is skipped
        if (std::filesystem::is_regular_file(candidate, unreadable) && ::access(candidate.c_str(), X_OK) == 0) {
            return std::filesystem::absolute(candidate);
        }
    }
    return {};
}

std::string quoted_for_shell(const std::string& text) {
    if (!text.empty() && text.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./=:,+@") ==
                             std::string::npos) {
        return text;
    }
    std::string out = "'";
    for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

std::string file_tail(const std::filesystem::path& file, std::size_t max_bytes) {
    std::ifstream in(file, std::ios::binary);
    if (!in) return "";
    in.seekg(0, std::ios::end);
    auto size = static_cast<std::size_t>(in.tellg());
    std::size_t start = size > max_bytes ? size - max_bytes : 0;
    in.seekg(static_cast<std::streamoff>(start));
    std::string text(size - start, '\0');
    in.read(text.data(), static_cast<std::streamsize>(text.size()));
    return start > 0 ? "...\n" + text : text;
}

}  // namespace roofline
