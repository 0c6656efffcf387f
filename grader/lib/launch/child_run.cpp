#include "child_run.hpp"

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

}  // namespace roofline
