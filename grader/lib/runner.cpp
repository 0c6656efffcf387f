#include "runner.hpp"

#include "exit_code.hpp"
#include "file_text.hpp"
#include "process.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>

namespace roofline {

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

ChildRun run_child(const std::vector<std::string>& argv, double timeout_s, const std::filesystem::path& work_dir) {
    ChildRun run;
    auto log_path = work_dir / "child-output.txt";
    ProcessSpec spec;
    spec.argv = argv;
    spec.output_file = log_path;  // stdout and stderr together, in the order they came
    spec.limits.timeout_s = timeout_s;
    spec.limits.core_dumps = true;  // as before: the grader sets no limits of its own on lab programs
    auto child = run_process(spec);
    if (!child.started) {
        run.output_tail = fmt::format("fork failed: {}", std::strerror(errno));
        return run;
    }
    run.timed_out = child.timed_out;
    run.wall_s = child.wall_s;
    run.exit_code = child.exit_code;
    run.signal = child.signal;
    auto output = read_file_text(log_path);
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
            run.result = nlohmann::json::parse(read_file_text(result_file));
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
        run.outcome = Outcome::correct;
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
    } else if (status == "hang") {
        run.outcome = Outcome::timed_out;
        run.message = fmt::format("{} hung: {} (a loop that never ends, or a barrier not every thread reaches?)",
                                  variant, message);
    } else if (status == "timing_refused") {
        run.outcome = Outcome::timing_refused;
        run.message = fmt::format("{}: {}", variant, message);
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
    result.compiler_ran = true;
    result.output = read_file_text(log);
    std::filesystem::remove(log);
    result.ok = status == 0;
    return result;
}

}  // namespace roofline
