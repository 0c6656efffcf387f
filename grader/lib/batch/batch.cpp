#include "batch.hpp"
#include "stage_trace.hpp"
#include "file_text.hpp"

#include "build_kit.hpp"
#include "class_report.hpp"
#include "gpus.hpp"
#include "gpu_holder.hpp"
#include "gradebook.hpp"
#include "grading.hpp"
#include "hidden.hpp"
#include "profiling.hpp"
#include "summary.hpp"
#include "input_error.hpp"
#include "lab_aliases.hpp"
#include "out_lock.hpp"
#include "output_file.hpp"
#include "report.hpp"
#include "sandbox.hpp"
#include "tool_run.hpp"

#include <fmt/format.h>

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <deque>
#include <map>
#include <fstream>
#include <mutex>
#include <sstream>
#include <thread>

namespace roofline::batch {

namespace fs = std::filesystem;

fs::path submission_dir(const fs::path& out, const std::string& name) { return out / "submissions" / name; }
bool is_finished(const fs::path& out, const std::string& name) {
    std::error_code unreadable;  // a folder that cannot be read (a path too long, no permission) holds no result
    return fs::exists(submission_dir(out, name) / "done", unreadable);
}

namespace {

std::string replace_all(std::string text, const std::string& from, const std::string& to) {
    for (auto at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
        text.replace(at, from.size(), to);
    }
    return text;
}

// The compiler's error lines (its first line, the one the gradebook shows, first), at most a dozen.
std::string error_lines(const std::string& log) {
    std::istringstream lines(log);
    std::string line, out;
    int kept = 0;
    bool first = true;
    while (std::getline(lines, line) && kept < 12) {
        if (first || (line.find("error") != std::string::npos && out.find(line) == std::string::npos)) {
            out += (out.empty() ? "" : "\n") + line;
            ++kept;
        }
        first = false;
    }
    return out;
}

// Written whole and flushed to disk, or an InputError naming the file (output_file.hpp).
void write_text(const fs::path& file, const std::string& text) {
    write_output_file(file, text, "the batch's output", OutputFolder::create);
}

// OUT/lab/LAB/lab.yaml: a lab folder of its own (the lab's id is its folder's name, and
// its kernels/ and cpu/ link to the course's, so that lab.yaml's `file:` entries resolve).
fs::path graded_lab_yaml(const fs::path& out, const std::string& lab) { return out / "lab" / lab / "lab.yaml"; }

// The lab.yaml the batch grades against: the public one or the hidden shapes in it.
LabSpec prepare_lab_yaml(const Workspace& course, const LabSpec& public_lab, const fs::path& hidden_file,
                         const fs::path& out_yaml, std::optional<HiddenSpec>& hidden) {
    fs::create_directories(out_yaml.parent_path());
    auto kernels = out_yaml.parent_path() / "kernels";
    std::error_code exists;  // the Slurm array's tasks all get here: the first one makes it
    fs::create_directory_symlink(fs::absolute(course.kernels_root(public_lab.id, false) / "kernels"), kernels, exists);
    auto cpu = course.kernels_root(public_lab.id, false) / "cpu";  // a CPU part's files (lab 05), likewise
    if (fs::is_directory(cpu)) fs::create_directory_symlink(fs::absolute(cpu), out_yaml.parent_path() / "cpu", exists);
    // Written beside and renamed into place, so a parallel slice never reads half a file.
    auto temporary = out_yaml;
    temporary += fmt::format(".{}.tmp", ::getpid());
    if (hidden_file.empty()) {
        fs::copy_file(course.lab_yaml(public_lab.id), temporary, fs::copy_options::overwrite_existing);
        fs::rename(temporary, out_yaml);
        return load_lab(out_yaml);
    }
    hidden = load_hidden(hidden_file, public_lab);
    write_hidden_lab_yaml(course.lab_yaml(public_lab.id), *hidden, temporary);
    fs::rename(temporary, out_yaml);
    LabSpec lab;
    try {
        lab = load_lab(out_yaml);
    } catch (const InputError& e) {
        throw InputError(hidden_file, 0, fmt::format("makes the lab invalid ({}); fix the hidden shapes", e.what()));
    }
    for (const auto& v : lab.variants) {
        if (auto refusal = lab.shape_refusal(v, v.timed)) throw InputError(hidden_file, 0, *refusal);
    }
    return lab;
}

// The sandbox every submission's code runs in: out of its sight, even inside a visible
// system folder, are the course and its build, the submissions, the batch's output and
// staging trees, the hidden shapes, the instructor's home. Where bwrap cannot make one
// the batch refuses (InputError: exit 2, nothing graded), unless the instructor turned the
// sandbox off (BatchOptions::no_sandbox): then nothing.
// `said`: what to print about it once the batch has said what it grades.
std::optional<Sandbox> prepare_sandbox(const Workspace& course, const BatchOptions& o, const fs::path& temp_root,
                                       std::string& said) {
    if (o.no_sandbox) {
        said = fmt::format("\n*** NO SANDBOX ({}): every submission's code is compiled and run with your rights: it "
                           "can read instructor/, solutions/ and the other submissions, write wherever you can, and use "
                           "the network. The gradebook's sandbox column says none.\n\n",
                           kNoSandboxFlag);
        return std::nullopt;
    }
    Sandbox sandbox;
    sandbox.bwrap = find_bwrap();
    sandbox.program_memory_bytes = o.program_memory_mib << 20;
    sandbox.hidden = {course.root, course.build_dir, o.submissions, o.out, temp_root};
    if (!o.hidden.empty()) sandbox.hidden.push_back(fs::absolute(o.hidden).parent_path());
    if (const char* home = std::getenv("HOME"); home && *home) sandbox.hidden.push_back(home);
    auto problem = sandbox_problem(sandbox);
    if (problem.empty()) {
        said = fmt::format("sandbox: {} (every compile and lab program)\n", sandbox.bwrap.string());
        if (o.program_memory_mib > 0) {
            std::string why_not;
            sandbox.systemd_run = sandbox_cgroup_runner(&why_not);
            if (!sandbox.systemd_run.empty()) {
                said += fmt::format("memory: at most {} MiB per lab program and CPU-part program (a cgroup through {})\n",
                                    o.program_memory_mib, sandbox.systemd_run.string());
            } else {
                said += fmt::format("memory: CPU-part programs at most {} MiB of address space; lab programs unlimited "
                                    "(a CUDA program needs a cgroup, and {})\n", o.program_memory_mib, why_not);
            }
        }
        return sandbox;
    }
    // One line that names every fix (the missing-bwrap problem already names the first two).
    std::string fix = problem.find("fetch_bwrap.sh") == std::string::npos
                          ? "; install the bubblewrap package, or set ROOFLINE_BWRAP=/path/to/bwrap "
                            "(scripts/fetch_bwrap.sh unpacks one)"
                          : "";
    throw InputError(fmt::format("no sandbox, nothing graded: {}{}; to grade code you trust without a sandbox, pass {}",
                                 problem, fix, kNoSandboxFlag));
}

// The machine's memory in MiB (MemTotal), 0 when /proc/meminfo cannot say.
long long machine_memory_mib() {
    std::ifstream meminfo("/proc/meminfo");
    std::string key, unit;
    long long kib = 0;
    while (meminfo >> key >> kib >> unit) {
        if (key == "MemTotal:") return kib >> 10;
    }
    return 0;
}

struct Ready {
    Submission submission;
    StagedSubmission staged;
    double build_s = 0;
};

class Batch {
public:
    Batch(const Workspace& course, const BatchOptions& o, LabSpec lab, BuildKit kit, std::optional<BuildKit> cpu_kit,
          std::uint64_t seed, std::vector<Submission> todo, std::vector<std::string> gpus, fs::path temp_root,
          std::optional<Sandbox> sandbox)
        : course_(course), o_(o), lab_(std::move(lab)), kit_(std::move(kit)), cpu_kit_(std::move(cpu_kit)), seed_(seed),
          todo_(std::move(todo)),
          gpus_(std::move(gpus)), temp_root_(std::move(temp_root)), sandbox_(std::move(sandbox)) {
        public_lab_ = load_lab(course.lab_yaml(o.lab));
        timeout_s_ = o.timeout_s > 0 ? o.timeout_s : double(lab_.variants.size()) * (lab_.timeout_s + 15) + 60;
        compiler_limits_.timeout_s = o.compile_timeout_s;
        compiler_limits_.memory_bytes = o.compile_memory_mib << 20;
    }

    void run() {
        int jobs = build_jobs(o_);
        std::vector<std::thread> threads;
        std::atomic<int> builders_left = jobs;
        for (int j = 0; j < jobs; ++j) {
            threads.emplace_back([this, &builders_left] {
                build_loop();
                if (--builders_left == 0) {
                    std::lock_guard lock(mutex_);
                    builds_done_ = true;
                    ready_changed_.notify_all();
                }
            });
        }
        GpuHolder holder(o_.roofline, gpus_, temp_root_);
        std::vector<std::string> workers = gpus_.empty() ? std::vector<std::string>{""} : gpus_;
        for (const auto& gpu : workers) threads.emplace_back([this, gpu] { grade_loop(gpu); });
        for (auto& t : threads) t.join();
    }

    // The submissions whose result could not be written (a full disk, a read-only folder).
    const std::vector<std::string>& unrecorded() const { return unrecorded_; }

    // Submissions that hold the same files as others (identical_submissions), named in their results.
    void name_identical(std::map<std::string, std::vector<std::string>> identical) { identical_ = std::move(identical); }

    // Lab 02: profile every submission before grading it, beside the given kernels' profiles
    // in `given_profiles` (batch/profiling.hpp).
    void profile_with(fs::path given_profiles) { given_profiles_ = std::move(given_profiles); }

private:
    void build_loop() {
        while (true) {
            std::size_t i = next_build_++;
            if (i >= todo_.size() || stop_requested()) return;
            const auto& submission = todo_[i];
            auto began = std::chrono::steady_clock::now();
            try {
                auto dir = submission_dir(o_.out, submission.name);
                fs::remove_all(dir);
                fs::create_directories(dir);
                auto staged = stage_submission(course_, public_lab_, graded_lab_yaml(o_.out, lab_.id), submission,
                                               temp_root_ / stage_name(submission.name));
                auto build = build_submission(kit_, staged.sources, staged.workspace.build_dir / "objects",
                                              staged.workspace.lab_executable(lab_.id, false), o_.out / "objects",
                                              compiler_limits_, sandbox_ ? &*sandbox_ : nullptr);
                if (build.ok && cpu_kit_) {  // the CPU part's program, compiled the same way (sandbox, limits)
                    auto cpu = build_submission(*cpu_kit_, staged.cpu_sources, staged.workspace.build_dir / "objects-cpu",
                                                staged.workspace.cpu_executable(lab_.id, false), o_.out / "objects",
                                                compiler_limits_, sandbox_ ? &*sandbox_ : nullptr);
                    build.ok = cpu.ok;
                    build.log += cpu.log;
                    if (!cpu.ok) build.message = cpu.message;
                }
                // The compiler names files by their staging path; the student knows them as kernels/NAME.
                auto staged_prefix = (staged.workspace.kernels_root(lab_.id, false) / "").string();
                write_text(dir / "build.log", replace_all(build.log, staged_prefix, ""));
                if (stop_requested()) return;  // an interrupted compile is no compile error
                if (!build.ok) {
                    auto reason = error_lines(replace_all(build.message + "\n" + build.log, staged_prefix, ""));
                    finish(submission, ungraded_result(submission.name, lab_, SubmissionOutcome::compile_error, reason),
                           seconds_since(began), nullptr);
                    continue;
                }
                std::lock_guard lock(mutex_);
                ready_.push_back({submission, std::move(staged), seconds_since(began)});
                ready_changed_.notify_one();
            } catch (const UnsafeEntry& e) {
                finish(submission, ungraded_result(submission.name, lab_, SubmissionOutcome::unsafe_entry, e.what()),
                       seconds_since(began), nullptr);
            } catch (const std::exception& e) {
                finish(submission, ungraded_result(submission.name, lab_, SubmissionOutcome::error, e.what()), seconds_since(began),
                       nullptr);
            }
        }
    }

    void grade_loop(const std::string& gpu) {
        while (true) {
            std::unique_lock lock(mutex_);
            ready_changed_.wait(lock, [this] { return !ready_.empty() || builds_done_; });
            if (ready_.empty() || stop_requested()) return;
            Ready job = std::move(ready_.front());
            ready_.pop_front();
            lock.unlock();
            auto began = std::chrono::steady_clock::now();
            try {
                GradeJob grade{o_.roofline, &job.staged, lab_.id, seed_, gpu, o_.hardware, timeout_s_,
                               submission_dir(o_.out, job.submission.name), sandbox_ ? &*sandbox_ : nullptr,
                               temp_root_ / "cache"};
                if (!given_profiles_.empty() && job.staged.log == LogState::present) {
                    // The grader scores the byte predictions and the diagnosis on these, never on the
                    // submission's own profile entries (staging leaves them out).
                    auto log = job.staged.workspace.default_log();
                    copy_profiles(given_profiles_, log);
                    auto profiled = profile_variants(grade, job.staged.workspace, lab_, log, lab_.timeout_s * 4 + 60);
                    for (const auto& failure : profiled.failures) job.staged.notes.push_back("not profiled: " + failure);
                }
                auto run = run_grading(grade);
                if (run.process.interrupted) return;  // no result, no marker: a re-run grades it
                auto result = classify_grading(job.submission.name, lab_,
                                               {job.staged.log, job.staged.log_message, job.staged.notes,
                                                job.staged.gap_noted, job.staged.logged_hours}, run);
                result.gpu = gpu.empty() ? "-" : gpu;
                finish(job.submission, result, job.build_s + seconds_since(began), &job.staged);
            } catch (const std::exception& e) {
                finish(job.submission, ungraded_result(job.submission.name, lab_, SubmissionOutcome::error, e.what()),
                       job.build_s + seconds_since(began), &job.staged);
            }
        }
    }

    // `seconds`: building plus grading, not the wait for a GPU in between.
    void finish(const Submission& submission, SubmissionResult result, double seconds, const StagedSubmission* staged) {
        result.seconds = seconds;
        result.sandbox = sandbox_ ? "bwrap" : "none";
        // Named whatever the outcome, to the instructor (the gradebook and the summary), not in the
        // reason the student sees (Gradescope): another student's name is not theirs to read.
        if (!submission.link_target.empty()) {
            result.warnings.push_back(fmt::format("the submission folder is a symbolic link to {}",
                                                  submission.link_target.string()));
        }
        if (auto same = identical_.find(submission.name); same != identical_.end()) {
            result.warnings.push_back(fmt::format("holds the same files, byte for byte, as {}", fmt::join(same->second, ", ")));
        }

        auto dir = submission_dir(o_.out, submission.name);
        try {
            write_json_file(dir / "result.json", to_json(result));
            write_json_file(dir / "results.json", submission_gradescope(lab_, result, dir / "gradescope"));
            write_text(dir / "done", "finished\n");  // last: only a recorded result is marked finished
        } catch (const std::exception& e) {
            // No marker, so a re-run grades it again; the batch fails at the end (unrecorded()).
            std::lock_guard lock(print_mutex_);
            unrecorded_.push_back(submission.name);
            fmt::print(stderr, "error: {}: its result ({}) could not be recorded: {}\n", submission.name,
                       outcome_name(result.outcome), e.what());
            return;
        }
        if (staged && !o_.keep_stage) fs::remove_all(staged->workspace.root);
        if (!staged && !o_.keep_stage) fs::remove_all(temp_root_ / stage_name(submission.name));
        std::lock_guard lock(print_mutex_);
        ++finished_;
        fmt::print(stderr, "[{}/{}] {}: {} {:.1f}/{:.0f} (gpu {}, {:.1f} s)\n", finished_, todo_.size(), submission.name,
                   outcome_name(result.outcome), result.score, result.max_score, result.gpu, result.seconds);
    }

    const Workspace& course_;
    const BatchOptions& o_;
    LabSpec lab_, public_lab_;
    BuildKit kit_;
    std::optional<BuildKit> cpu_kit_;  // the lab's CPU part, if it has one
    std::uint64_t seed_;
    std::vector<Submission> todo_;
    std::vector<std::string> gpus_;
    fs::path temp_root_;
    std::optional<Sandbox> sandbox_;
    double timeout_s_ = 0;
    CompilerLimits compiler_limits_;
    fs::path given_profiles_;  // empty: no profiling (not needed, or no ncu)
    std::map<std::string, std::vector<std::string>> identical_;

    std::atomic<std::size_t> next_build_{0};
    std::mutex mutex_, print_mutex_;
    std::condition_variable ready_changed_;
    std::deque<Ready> ready_;
    bool builds_done_ = false;
    int finished_ = 0;
    std::vector<std::string> unrecorded_;
};

}  // namespace

int build_jobs(const BatchOptions& o, std::string* note) {
    int asked = o.jobs > 0 ? o.jobs : int(std::max(1u, std::thread::hardware_concurrency()));
    if (o.compile_memory_mib <= 0) return asked;
    long long total = o.compile_memory_total_mib > 0 ? o.compile_memory_total_mib : machine_memory_mib() * 3 / 4;
    if (total <= 0) return asked;
    int fits = int(std::max<long long>(1, total / o.compile_memory_mib));
    if (fits >= asked) return asked;
    if (note) {
        *note = fmt::format(" (of {}: {} x {} MiB per compile fits in the compiles' total of {} MiB; "
                            "--compile-memory-total to change it)", asked, fits, o.compile_memory_mib, total);
    }
    return fits;
}

int remove_stale_staging_trees(const fs::path& temp_dir) {
    int removed = 0;
    std::error_code error;
    for (const auto& entry : fs::directory_iterator(temp_dir, error)) {
        auto name = entry.path().filename().string();
        const std::string prefix = "roofline-batch-";
        if (!name.starts_with(prefix)) continue;
        auto pid_text = name.substr(prefix.size(), name.find('-', prefix.size()) - prefix.size());
        // Older batches named their trees without a pid: whose they were cannot be told, so they stay.
        if (pid_text.empty() || pid_text.size() > 9 || pid_text.find_first_not_of("0123456789") != std::string::npos ||
            name.find('-', prefix.size()) == std::string::npos)
            continue;
        struct stat st {};
        if (::lstat(entry.path().c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != ::getuid()) continue;
        auto pid = static_cast<pid_t>(std::stol(pid_text));
        if (pid <= 0 || pid == ::getpid() || ::kill(pid, 0) == 0 || errno != ESRCH) continue;  // alive (or not ours to tell)
        if (fs::exists(entry.path() / kKeepStageMarker, error)) continue;  // --keep-stage: kept for the instructor
        fs::remove_all(entry.path(), error);
        if (!error) ++removed;
    }
    return removed;
}

int run_batch(const Workspace& course, const BatchOptions& o) {
    if (!fs::exists(course.lab_yaml(o.lab))) {
        throw InputError(fmt::format("no lab '{}' under {}; see `roofline list`", o.lab, course.labs_dir().string()));
    }
    auto public_lab = load_lab(course.lab_yaml(o.lab));
    auto all = find_submissions(o.submissions);
    auto kit = load_build_kit(course.build_dir, o.lab);
    // A CPU part (lab 05's layout library): its own kit, its program built per submission
    // beside the lab program and run by `roofline grade` in the same sandbox.
    std::optional<BuildKit> cpu_kit;
    if (std::any_of(public_lab.variants.begin(), public_lab.variants.end(), [](const VariantSpec& v) { return v.cpu_graded; }))
        cpu_kit = load_build_kit(course.build_dir, o.lab + "-cpu");
    fs::create_directories(o.out / "submissions");
    OutLock out_lock(o.out, o.slice);  // held to the end: a second batch on this folder refuses (exit 2)
    if (int removed = remove_stale_staging_trees(fs::temp_directory_path()); removed > 0) {
        fmt::print(stderr, "removed {} staging tree{} left in {} by batches that were killed\n", removed,
                   removed == 1 ? "" : "s", fs::temp_directory_path().string());
    }
    std::optional<HiddenSpec> hidden;
    auto lab = prepare_lab_yaml(course, public_lab, o.hidden, graded_lab_yaml(o.out, o.lab), hidden);
    std::uint64_t seed = o.seed ? *o.seed : hidden && hidden->seed ? *hidden->seed : 1;

    nlohmann::json names = nlohmann::json::array();
    for (const auto& s : all) names.push_back(s.name);
    write_json_file(o.out / "batch.json",  // whole or not at all, so a parallel slice never reads half of it
                    {{"lab", o.lab}, {"seed", seed}, {"hidden", o.hidden.empty() ? "" : fs::absolute(o.hidden).string()},
                     {"submissions_dir", fs::absolute(o.submissions).string()}, {"submissions", names}});

    auto mine = o.slice ? slice_of(all, *o.slice) : all;
    std::vector<Submission> todo;
    int skipped = 0;
    for (const auto& s : mine) {
        if (!o.force && is_finished(o.out, s.name)) ++skipped;
        else todo.push_back(s);
    }
    auto gpus = resolve_gpus(o.gpus);
    // The sandbox first: where there is none, the batch refuses before it says anything else.
    std::string pattern, sandbox_said;
    std::optional<Sandbox> sandbox;
    if (!todo.empty()) {
        // The pid in the name: a later batch removes the tree if this one is killed (remove_stale_staging_trees).
        pattern = (fs::temp_directory_path() / fmt::format("roofline-batch-{}-XXXXXX", ::getpid())).string();
        if (!::mkdtemp(pattern.data())) throw InputError("cannot make a temporary folder under " + fs::temp_directory_path().string());
        if (o.keep_stage) std::ofstream(fs::path(pattern) / kKeepStageMarker) << "kept by --keep-stage\n";
        try {
            sandbox = prepare_sandbox(course, o, pattern, sandbox_said);
        } catch (...) {
            fs::remove_all(pattern);
            throw;
        }
    }
    std::string capped;
    int jobs = build_jobs(o, &capped);
    std::vector<std::string> unrecorded;
    fmt::print(stderr, "batch {}: {} submissions{}, {} to grade, {} already graded (--force to redo); seed {}{}; "
               "{} build jobs{}; {}\n",
               o.lab, mine.size(), o.slice ? fmt::format(" in slice {}/{}", o.slice->index, o.slice->count) : "",
               todo.size(), skipped, seed, hidden ? ", hidden shapes from " + o.hidden.string() : "", jobs, capped,
               gpus.empty() ? std::string("no GPU: grading stops at the device check")
                            : fmt::format("GPUs {}", fmt::join(gpus, ",")));

    if (!todo.empty()) {
        fmt::print(stderr, "{}", sandbox_said);

        fs::path given_profiles;
        if (scores_profiles(lab)) {
            bool ncu_found = !find_tool("ncu", "ROOFLINE_NCU").empty();
            if (!ncu_found) {
                fmt::print(stderr, "\n{}\n\n", profiler_missing_note(lab, false));
            } else {
                // The course's own kernels, as handed out, at the public shapes: trusted, so no sandbox.
                given_profiles = o.out / "given-profiles.yaml";
                fs::remove(given_profiles);
                GradeJob course_job{o.roofline, nullptr, lab.id, seed, gpus.empty() ? "" : gpus.front(), o.hardware,
                                    0, o.out, nullptr, fs::path(pattern) / "cache"};
                auto given = profile_variants(course_job, course, public_lab, given_profiles,
                                              public_lab.timeout_s * 4 + 60, true);
                fmt::print(stderr, "profiles: the course's {} kernels profiled once ({} of {}){}{}\n", lab.id,
                           given.profiled, public_lab.variants.size(), given.failures.empty() ? "" : "; not: ",
                           fmt::join(given.failures, "; "));
            }
        }
        Batch batch(course, o, lab, kit, cpu_kit, seed, todo, gpus, pattern, std::move(sandbox));
        batch.profile_with(given_profiles);
        batch.name_identical(identical_submissions(all));
        batch.run();
        if (!o.keep_stage) fs::remove_all(pattern);
        else fmt::print(stderr, "staging trees kept in {}\n", pattern);
        unrecorded = batch.unrecorded();
    }
    if (stop_requested()) {
        fmt::print(stderr, "interrupted: submissions without a result are graded when the same command runs again\n");
        return 130;
    }
    if (!unrecorded.empty()) {
        fmt::print(stderr, "error: the results of {} submissions could not be written: {}; nothing else is recorded "
                   "for them: free space or fix {}'s permissions and run the same command again\n",
                   unrecorded.size(), fmt::join(unrecorded, ", "), o.out.string());
        if (!o.slice) merge_batch(o.out);
        return 1;
    }
    if (o.slice) {
        fmt::print(stderr, "slice {}/{} finished; when every slice has: roofline batch --merge {}\n", o.slice->index,
                   o.slice->count, o.out.string());
        return 0;
    }
    return merge_batch(o.out);
}

int merge_batch(const fs::path& out) {
    auto batch_file = out / "batch.json";
    if (!fs::exists(batch_file)) {
        throw InputError(batch_file, 0, "not found: --merge takes the --out folder of a batch (roofline batch LAB ... --out DIR)");
    }
    auto batch = nlohmann::json::parse(read_file_text(batch_file), nullptr, false);
    if (!batch.is_object() || !batch.contains("submissions")) throw InputError(batch_file, 0, "unreadable; run the batch again");
    // A class folder written before the renumbering names the lab by its old name (lab_aliases.hpp).
    BatchFacts facts{resolve_lab_name(batch["lab"].get<std::string>()), batch["seed"].get<std::uint64_t>(), batch["hidden"].get<std::string>(), {}};
    std::vector<SubmissionResult> results;
    for (const auto& name_json : batch["submissions"]) {
        auto name = name_json.get<std::string>();
        auto file = submission_dir(out, name) / "result.json";
        if (!is_finished(out, name) || !fs::exists(file)) {
            facts.not_graded.push_back(name);
            continue;
        }
        try {
            results.push_back(result_from_json(nlohmann::json::parse(read_file_text(file))));
        } catch (const nlohmann::json::exception& e) {
            throw InputError(file, 0, fmt::format("unreadable ({}); delete {} and run the batch again to regrade it",
                                                  e.what(), submission_dir(out, name).string()));
        }
    }
    write_text(out / "gradebook.csv", gradebook_csv(results));
    write_text(out / "summary.md", summary_markdown(facts, results));
    write_class_report(out, facts, results);
    fmt::print(stderr, "gradebook: {}\nsummary:   {}\n", (out / "gradebook.csv").string(), (out / "summary.md").string());
    if (!facts.not_graded.empty()) {
        fmt::print(stderr, "error: {} submissions have no result yet: {}; run the batch (or its missing slices) again\n",
                   facts.not_graded.size(), fmt::join(facts.not_graded, ", "));
        return 1;
    }
    return 0;
}

}  // namespace roofline::batch
