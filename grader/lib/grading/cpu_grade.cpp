#include "cpu_grade.hpp"
#include "sandbox.hpp"

#include "build_progress.hpp"
#include "debrief.hpp"
#include "exit_code.hpp"
#include "file_text.hpp"
#include "prediction_log.hpp"
#include "report.hpp"
#include "lab_run.hpp"
#include "output_file.hpp"

#include <fmt/format.h>

#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <tuple>

namespace roofline {

namespace {

std::string first_wrong_text(const nlohmann::json& w) {
    std::string text = fmt::format("    case      {}\n", w.value("case", std::string()));
    auto index = w.value("index", -1LL);
    if (index >= 0) {
        text += fmt::format("    index     {}{}\n", index,
                            w.value("coordinate", std::string()).empty() ? "" : " = coordinate " + w.value("coordinate", std::string()));
    }
    text += fmt::format("    expected  {}\n    got       {}\n", w.value("expected", std::string()), w.value("got", std::string()));
    return text;
}

// The checker's stderr, for the message when it failed: its last line.
std::string last_line(std::string text) {
    while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
    auto at = text.rfind('\n');
    return at == std::string::npos ? text : text.substr(at + 1);
}

}  // namespace

CpuVerdict interpret_cpu_check(const ProcessResult& ended, const std::optional<nlohmann::json>& result,
                               const std::string& stderr_tail, double timeout_s) {
    auto said = last_line(stderr_tail);
    auto checker_failed = [&](const std::string& how) {
        return CpuVerdict{kCrashedOrTimedOut, "error",
                          fmt::format("the grader's checker {}{}: the grader's failure, not your "
                                      "code's; tell your instructor", how, said.empty() ? "" : " (it said: " + said + ")")};
    };
    // Only a verdict the checker finished counts: one left behind by a checker that was
    // killed, or that crashed, is not taken.
    if (ended.timed_out) return checker_failed(fmt::format("ran past {:g} s without a verdict", timeout_s));
    if (ended.signal != 0) {
        return checker_failed(fmt::format("died of {} (signal {}) without a verdict", strsignal(ended.signal) ? strsignal(ended.signal) : "a signal",
                                          ended.signal));
    }
    if (!result || !result->is_object() || !result->contains("status") || !(*result)["status"].is_string()) {
        return checker_failed(fmt::format("ended (exit {}) without a verdict", ended.exit_code));
    }
    auto status = result->value("status", std::string());
    auto message = result->value("message", std::string());
    if (status == "correct") {
        if (ended.exit_code != 0) return checker_failed(fmt::format("said correct but ended with exit {}", ended.exit_code));
        return {kGradedCorrect, "correct", message};
    }
    if (status == "error") return checker_failed(fmt::format("failed ({})", message));
    std::string text = message + "\n";
    if (result->contains("first_wrong") && (*result)["first_wrong"].is_object()) text += first_wrong_text(result->at("first_wrong"));
    if (!text.empty() && text.back() == '\n') text.pop_back();
    if (status == "incorrect" || status == "threw") {
        return {kGradedIncorrect, status, text};
    }
    if (status == "hang") return {kCrashedOrTimedOut, "hang", text};
    if (status == "crashed" || status == "bad_reply") return {kCrashedOrTimedOut, "crashed", text};
    return checker_failed(fmt::format("wrote the unknown status '{}'", status));
}

std::filesystem::path cpu_checker_program(const std::string& problem) {
    auto name = "roofline-" + problem + "-check";
    std::error_code error;
    auto self = std::filesystem::read_symlink("/proc/self/exe", error);
    if (!error && std::filesystem::exists(self.parent_path() / name)) return self.parent_path() / name;
    return std::filesystem::path(ROOFLINE_BINARY_DIR) / name;
}

GradeOutcome grade_cpu_variant(const Workspace& ws, const GradeRequest& request, const LabSpec& lab,
                               const VariantSpec& variant) {
    GradeOutcome out;
    std::string target = request.lab + "/" + request.variant;
    double max_points = lab.scoring.correctness;
    if (request.build) {
        // The runner's target depends on the checker's (cmake/RooflineCpuPart.cmake): one build makes both.
        auto build = build_with_progress(ws.build_dir, ws.cpu_target(lab.id, request.solutions), false);
        if (!build.ok) return build_failure(target, build);
    }
    auto runner = std::filesystem::absolute(ws.cpu_executable(lab.id, request.solutions));  // it runs in its own folder
    auto checker = cpu_checker_program(variant.problem);
    for (const auto& [program, build_dir, cmake_target] :
         {std::tuple{runner, ws.build_dir, ws.cpu_target(lab.id, request.solutions)},
          std::tuple{checker, checker.parent_path(), checker.filename().string()}}) {
        if (std::filesystem::exists(program)) continue;
        out.exit_code = kBuildFailed;
        out.text = fmt::format("{}: {} is not built; build it with `cmake --build {} --target {}` (or grade without "
                               "--no-build)\n", target, program.string(), build_dir.string(), cmake_target);
        out.json = {{"target", target}, {"outcome", outcome_name(Outcome::build_failed)}, {"message", out.text}};
        return out;
    }

    // The checker's folder holds the verdict; the runner's, inside it, is all the runner
    // may write (and, in the sandbox, all of it the runner sees).
    std::string pattern = (std::filesystem::temp_directory_path() /
                           fmt::format("roofline-{}-{}-cpu-XXXXXX", ::getpid(), variant.name)).string();
    if (!::mkdtemp(pattern.data())) {
        out.exit_code = kCrashedOrTimedOut;
        out.text = fmt::format("{}: cannot make a temporary folder ({})\n", target, std::strerror(errno));
        out.json = {{"target", target}, {"outcome", outcome_name(Outcome::harness_error)}, {"message", out.text}};
        return out;
    }
    std::filesystem::path work_dir = pattern;
    auto runner_dir = work_dir / "runner";
    std::filesystem::create_directories(runner_dir);
    auto result_file = work_dir / "result.json";
    std::vector<std::string> runner_argv{runner.string(), "--serve"};
    ProcessSpec spec;
    spec.argv = {checker.string(), "--part", variant.op, "--result", result_file.string(), "--timeout",
                 fmt::format("{:g}", lab.timeout_s)};
    if (auto sandbox = sandbox_from_environment()) {
        // Under roofline batch: the student's code runs in the sandbox like a lab program,
        // seeing the system and its program, writing only its own folder. The checker
        // starts it there and stays outside, and limits its address space itself (2 GiB,
        // layout_check_main.cpp): the sandbox adds no memory limit of its own, since a
        // prlimit inside it cannot raise the checker's hard limit and would fail the start.
        runner_argv = sandboxed_argv(*sandbox, {{runner}, {runner_dir}, runner_dir, /*limit_memory=*/false,
                                                /*uses_cuda=*/false},
                                     runner_argv);
        spec.argv.push_back("--sandboxed");
    }
    spec.argv.push_back("--");
    spec.argv.insert(spec.argv.end(), runner_argv.begin(), runner_argv.end());
    spec.work_dir = runner_dir;  // the runner starts where the checker does
    spec.output_file = work_dir / "checker-stdout.txt";
    spec.error_file = work_dir / "checker-stderr.txt";
    spec.limits.timeout_s = lab.timeout_s + 30;  // the checker stops the runner at timeout_s itself
    auto ended = run_process(spec);
    std::optional<nlohmann::json> result;
    if (std::filesystem::exists(result_file)) {
        std::ifstream in(result_file);
        auto parsed = nlohmann::json::parse(in, nullptr, false);
        if (!parsed.is_discarded()) result = parsed;
    }
    auto verdict = interpret_cpu_check(ended, result, file_tail(spec.error_file), spec.limits.timeout_s);
    std::error_code ignored;
    std::filesystem::remove_all(work_dir, ignored);

    double points = verdict.exit_code == kGradedCorrect ? max_points : 0;
    auto where = request.solutions ? "solutions" : "labs";
    if (verdict.outcome == "correct") {
        out.text = fmt::format("{}  CORRECT ({}, checked on the CPU)\n  {}\n  points    {:g} / {:g} (correctness; "
                               "graded on the CPU: no time, no prediction)\n",
                               target, where, verdict.message, points, max_points);
    } else {
        out.text = fmt::format("{}  {} ({}, checked on the CPU; edit {})\n  {}\n  points    0 / {:g}\n", target,
                               verdict.outcome == "incorrect" ? "INCORRECT" : verdict.outcome == "threw" ? "INCORRECT (threw)"
                                                                                                         : "FAILED (" + verdict.outcome + ")",
                               where, variant.file.string(), verdict.message, max_points);
    }
    out.exit_code = verdict.exit_code;
    out.json = {{"target", target},  {"outcome", verdict.outcome}, {"graded_on", "cpu"},
                {"correct", verdict.exit_code == kGradedCorrect},
                {"message", verdict.message}, {"points", {{"total", points}, {"max", max_points}}}};
    if (result && result->contains("first_wrong")) out.json["first_wrong"] = result->at("first_wrong");
    if (result) out.json["cases"] = result->value("cases", 0LL);
    out.gradescope = {{"score", points},
                      {"max_score", max_points},
                      {"output", target + " on the CPU"},
                      {"visibility", "visible"},
                      {"tests", nlohmann::json::array({{{"name", target + ": correctness"},
                                                        {"score", points},
                                                        {"max_score", max_points},
                                                        {"output", verdict.message},
                                                        {"visibility", "visible"}}})}};
    // A grade is a measurement in the student's log like any other (graded_on: cpu), so that
    // `explain`, `debrief` and `log` work for it. Not `roofline run` (a check, as on the GPU), and
    // not the reference solutions' grades, which are not the student's.
    bool graded = verdict.exit_code == kGradedCorrect || verdict.exit_code == kGradedIncorrect;
    if (graded && !request.solutions && !request.verify_only) {
        record_cpu_grade(request.log, lab.id, variant.name, verdict.exit_code == kGradedCorrect, points, max_points);
    }
    if (verdict.exit_code == kGradedCorrect) {
        write_json_file(ws.results_dir(lab.id, request.solutions) / (variant.name + ".json"), out.json);
        // The debrief (how the reference solves it, the usual mistakes) opens with a correct grade.
        auto debrief = debrief_file(ws, lab.id, variant.name);
        if (std::filesystem::is_regular_file(debrief)) out.debrief = read_file_text(debrief);
    }
    return out;
}

}  // namespace roofline
