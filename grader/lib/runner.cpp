#include "runner.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include <chrono>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

namespace roofline {

namespace {

std::string read_file(const std::filesystem::path& file) {
    std::ifstream in(file, std::ios::binary);
    std::stringstream content;
    content << in.rdbuf();
    return content.str();
}

std::string tail_lines(const std::string& text, int lines) {
    int seen = 0;
    for (std::size_t i = text.size(); i > 0; --i) {
        if (text[i - 1] == '\n' && i != text.size() && ++seen == lines) return text.substr(i);
    }
    return text;
}

std::string last_stage_in(const std::string& text) {
    const std::string marker = "roofline-stage: ";
    auto pos = text.rfind(marker);
    if (pos == std::string::npos) return "start-up";
    auto end = text.find('\n', pos);
    return text.substr(pos + marker.size(), end == std::string::npos ? std::string::npos : end - pos - marker.size());
}

}  // namespace

ChildRun run_child(const std::vector<std::string>& argv, double timeout_s, const std::filesystem::path& work_dir) {
    ChildRun run;
    auto log_path = work_dir / "child-output.txt";
    auto began = std::chrono::steady_clock::now();
    pid_t pid = ::fork();
    if (pid == 0) {
        ::setpgid(0, 0);  // its own group, so a timeout can kill whatever it started too
        int fd = ::open(log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd >= 0) {
            ::dup2(fd, STDOUT_FILENO);
            ::dup2(fd, STDERR_FILENO);
            ::close(fd);
        }
        std::vector<char*> args;
        for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
        args.push_back(nullptr);
        ::execv(args[0], args.data());
        std::fprintf(stderr, "cannot start %s: %s\n", args[0], std::strerror(errno));
        ::_exit(127);
    }
    if (pid < 0) {
        run.output_tail = fmt::format("fork failed: {}", std::strerror(errno));
        return run;
    }
    ::setpgid(pid, pid);
    auto deadline = began + std::chrono::duration<double>(timeout_s);
    int status = 0;
    while (true) {
        pid_t done = ::waitpid(pid, &status, WNOHANG);
        if (done == pid) break;
        if (std::chrono::steady_clock::now() > deadline) {
            run.timed_out = true;
            ::kill(-pid, SIGKILL);
            ::waitpid(pid, &status, 0);
            break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    run.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
    if (WIFEXITED(status)) run.exit_code = WEXITSTATUS(status);
    if (WIFSIGNALED(status)) run.signal = WTERMSIG(status);
    auto output = read_file(log_path);
    run.last_stage = last_stage_in(output);
    run.output_tail = tail_lines(output, 15);
    return run;
}

LabRun interpret(const ChildRun& child, const std::filesystem::path& result_file, const std::string& variant,
                 double timeout_s) {
    LabRun run;
    run.child = child;
    if (child.timed_out) {
        run.outcome = Outcome::timed_out;
        run.message = fmt::format("{} timed out after {:g} s during '{}' (a hang: a loop that never ends, or a "
                                  "barrier not every thread reaches?)",
                                  variant, timeout_s, child.last_stage);
        return run;
    }
    if (child.signal != 0) {
        run.outcome = Outcome::crashed;
        run.message = fmt::format("{} crashed with signal {} ({}) during '{}'", variant, child.signal,
                                  strsignal(child.signal), child.last_stage);
        return run;
    }
    if (std::filesystem::exists(result_file)) {
        try {
            run.result = nlohmann::json::parse(read_file(result_file));
        } catch (const nlohmann::json::exception&) {
            run.result = nullptr;
        }
    }
    if (!run.result.is_object() || !run.result.contains("status")) {
        run.outcome = Outcome::crashed;
        run.message = fmt::format("{} exited with code {} during '{}' without a result (did the kernel file call exit()?)",
                                  variant, child.exit_code, child.last_stage);
        return run;
    }
    auto status = run.result["status"].get<std::string>();
    auto message = run.result.value("message", std::string());
    if (status == "ok") {
        run.outcome = Outcome::ok;
        run.message = "correct";
    } else if (status == "incorrect") {
        run.outcome = Outcome::incorrect;
        for (const auto& check : run.result["checks"]) {
            if (!check["report"]["passed"].get<bool>()) {
                run.message = fmt::format("{} is incorrect on {} ({}): {}", variant, check["shape"].dump(),
                                          check["when"].get<std::string>(),
                                          check["report"]["verdict"].get<std::string>());
            }
        }
    } else if (status == "cuda_error") {
        run.outcome = Outcome::cuda_error;
        run.message = fmt::format("{} raised a CUDA error during '{}': {}", variant, child.last_stage, message);
    } else {
        run.outcome = Outcome::harness_error;
        run.message = fmt::format("{}: {}", variant, message);
    }
    return run;
}

BuildResult build_target(const std::filesystem::path& build_dir, const std::string& target) {
    BuildResult result;
    if (!std::filesystem::exists(build_dir / "CMakeCache.txt")) {
        result.output = fmt::format("{} is not a configured build folder; run ./setup.sh first (or pass --build-dir)",
                                    build_dir.string());
        return result;
    }
    auto log = std::filesystem::temp_directory_path() / fmt::format("roofline-build-{}.txt", ::getpid());
    auto command = fmt::format("cmake --build '{}' --target '{}' > '{}' 2>&1", build_dir.string(), target, log.string());
    int status = std::system(command.c_str());
    result.output = read_file(log);
    std::filesystem::remove(log);
    result.ok = status == 0;
    return result;
}

}  // namespace roofline
