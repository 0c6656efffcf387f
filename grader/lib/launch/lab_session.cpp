#include "lab_session.hpp"
#include "file_text.hpp"
#include "input_error.hpp"
#include "sandbox.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <sys/socket.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>

namespace roofline {

namespace fs = std::filesystem;

fs::path judge_program() {
    std::error_code error;
    auto self = fs::read_symlink("/proc/self/exe", error);
    if (!error && fs::exists(self.parent_path() / "roofline-judge")) return self.parent_path() / "roofline-judge";
    return fs::path(ROOFLINE_BINARY_DIR) / "roofline-judge";  // a test program's build
}

LabSession::LabSession(fs::path executable, fs::path work_dir, bool judged)
    : executable_(std::move(executable)), work_dir_(std::move(work_dir)), judged_(judged) {}

LabSession::~LabSession() {
    unjudged_.reset();
    kill_process(process_);
    forward_trace();
    std::error_code ignored;
    fs::remove_all(work_dir_, ignored);
}

void LabSession::end() {
    kill_process(process_);
    if (unjudged_) unjudged_->end();
}

// With ROOFLINE_TRACE set, the lab programs' stage marks (their logs are removed with the
// working folder) are copied to the grader's stderr, marked "[lab trace", in the order the
// programs started; times are since each program's own start.
void LabSession::forward_trace() const {
    if (!std::getenv("ROOFLINE_TRACE")) return;
    for (int start = 1; start <= starts_; ++start) {
        std::istringstream log(read_file_text(work_dir_ / fmt::format("lab-program-{}.txt", start)));
        for (std::string line; std::getline(log, line);)
            if (line.rfind("[trace", 0) == 0) fmt::print(stderr, "[lab trace {}/{}{}\n", work_dir_.filename().string(), start, line.substr(6));
    }
}

bool LabSession::start() {
    fs::create_directories(work_dir_);
    output_file_ = work_dir_ / fmt::format("lab-program-{}.txt", ++starts_);
    ProcessSpec spec;
    spec.argv = {executable_.string(), "--serve"};
    spec.work_dir = work_dir_;
    spec.output_file = output_file_;  // stdout and stderr together, in the order they came
    spec.stdin_pipe = true;
    spec.new_session = false;  // in the grader's session: roofline batch killing a grade kills this too
    spec.limits.core_dumps = true;  // as before: the grader sets no limits of its own on lab programs
    std::vector<std::string> lab_program{executable_.string()};
    if (auto sandbox = sandbox_from_environment()) {
        if (judged_) {
            // Under roofline batch, judged: the lab program sees the system, itself and a folder of
            // its own to write in; not the folder where the judge writes the results.
            const fs::path room = work_dir_ / "runner";
            fs::create_directories(room);
            lab_program = sandboxed_argv(*sandbox, {{executable_}, {room}, room}, lab_program);
        } else {
            // Unjudged (watch and timeline jobs): it writes its own result files in its folder.
            lab_program = sandboxed_argv(*sandbox, {{executable_}, {fs::temp_directory_path(), work_dir_}, work_dir_},
                                         lab_program);
        }
    }
    if (judged_) {
        // The judge runs outside any sandbox (it is the grader's); the lab program, its runner,
        // inside it. Only the judge writes result files.
        spec.argv = {judge_program().string(), "--serve", "--runner-argv", nlohmann::json(lab_program).dump()};
    } else {
        lab_program.push_back("--serve");
        spec.argv = lab_program;
    }
    process_ = start_process(spec);
    return process_.running();
}

bool LabSession::send(const std::string& line) {
    std::size_t sent = 0;
    while (sent < line.size()) {
        auto n = ::send(process_.stdin_fd, line.data() + sent, line.size() - sent, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        sent += std::size_t(n);
    }
    return true;
}

ChildRun LabSession::run(const protocol::Job& job, double timeout_s) {
    using protocol::JobMode;
    if (judged_ && job.mode != JobMode::grade && job.mode != JobMode::device_info) {
        // What ran in the lab program's own process (watch, timeline) is asked of that process;
        // the grader takes its answer as a cross-check of the judge's, never as a verdict. So is
        // `roofline run`'s verify job: a look, watched, never a grade.
        if (!unjudged_) unjudged_ = std::make_unique<LabSession>(executable_, work_dir_ / "unjudged", false);
        return unjudged_->run(job, timeout_s);
    }
    ChildRun run;
    const fs::path result_file = job.result_path;
    fs::remove(result_file);
    auto line = nlohmann::json(job).dump() + "\n";
    // A program that ended after the last job (a CUDA error ends it) is started
    // again; so is one that died between two jobs and refuses this one.
    bool sent = false;
    std::uintmax_t offset = 0;  // where this job's output starts
    ProcessResult ended;
    for (int attempt = 0; attempt < 2 && !sent; ++attempt) {
        if (!process_.running() && !start()) {
            run.output_tail = fmt::format("fork failed: {}", std::strerror(errno));
            return run;
        }
        offset = fs::exists(output_file_) ? fs::file_size(output_file_) : 0;
        sent = send(line);
        // Refused: its stdin is closed, so it has ended or is ending. Reap it.
        if (!sent) wait_process(process_, std::chrono::steady_clock::now() + std::chrono::seconds(5), nullptr, ended);
    }
    if (!sent) {
        auto output = read_file_text(output_file_);
        run.exit_code = ended.exit_code;
        run.signal = ended.signal;
        run.last_stage = last_stage_in(output);
        run.output_tail = tail_lines(output, 15);
        return run;
    }
    auto began = std::chrono::steady_clock::now();
    auto deadline = began + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                std::chrono::duration<double>(timeout_s));
    auto end = wait_process(process_, deadline, [&] { return fs::exists(result_file); }, ended);
    run.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
    run.timed_out = end == WaitEnd::timed_out || end == WaitEnd::interrupted;
    run.exit_code = end == WaitEnd::done ? 0 : ended.exit_code;
    run.signal = end == WaitEnd::done ? 0 : ended.signal;
    auto output = read_file_text(output_file_);
    output = offset < output.size() ? output.substr(offset) : std::string();
    run.last_stage = last_stage_in(output);
    run.output_tail = tail_lines(output, 15);
    return run;
}

std::optional<DeviceInfo> LabSession::device(std::string* why_not, bool* failed) {
    if (device_) return device_;
    if (!fs::exists(executable_)) {
        throw InputError(executable_, 0, "the lab program is not built; run `roofline grade` without --no-build "
                                         "(or cmake --build build)");
    }
    if (judged_ && !fs::exists(judge_program())) {
        throw InputError(judge_program(), 0, "the judge is not built; run cmake --build build --target roofline-judge");
    }
    auto result_file = work_dir_ / "device.json";
    protocol::Job job;
    job.mode = protocol::JobMode::device_info;
    job.result_path = result_file.string();
    auto child = run(job, 120);
    std::optional<protocol::Result> answer;
    std::string malformed;
    if (fs::exists(result_file)) {
        try {
            answer = read_answer(job);
        } catch (const protocol::MalformedResult& e) {
            malformed = e.what();
        }
    }
    if (answer && answer->status == protocol::JobStatus::ok) {
        const auto& d = *answer->device;
        DeviceInfo info{d.name, d.sm_count, d.l2_bytes, 0, 0};
        std::sscanf(d.compute_capability.c_str(), "%d.%d", &info.cc_major, &info.cc_minor);
        device_ = info;
        return device_;
    }
    const bool no_device = answer && answer->status == protocol::JobStatus::no_device;
    if (failed) *failed = !no_device;
    if (why_not) {
        *why_not = no_device           ? (answer->message.empty() ? "no CUDA device found" : answer->message)
                   : !malformed.empty() ? "the lab program's answer cannot be read: " + malformed
                   : child.timed_out     ? "the lab program did not answer within 120 s"
                   : child.signal        ? fmt::format("the lab program died of signal {} ({})", child.signal,
                                                       strsignal(child.signal))
                                         : fmt::format("the lab program could not say (exit {}): {}", child.exit_code,
                                                       child.output_tail);
    }
    return std::nullopt;
}

}  // namespace roofline
