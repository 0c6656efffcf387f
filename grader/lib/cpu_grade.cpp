#include "cpu_grade.hpp"
#include "sandbox.hpp"

#include "build_progress.hpp"
#include "debrief.hpp"
#include "exit_code.hpp"
#include "file_text.hpp"
#include "prediction_log.hpp"
#include "report.hpp"
#include "runner.hpp"

#include <fmt/format.h>

#include <unistd.h>

#include <csignal>
#include <cstring>
#include <fstream>

namespace roofline {

namespace {

// The last "roofline-stage: ..." line of the program's stderr, without the prefix.
std::string last_stage(const std::string& stderr_tail) {
    const std::string prefix = "roofline-stage: ";
    auto at = stderr_tail.rfind(prefix);
    if (at == std::string::npos) return "";
    auto end = stderr_tail.find('\n', at);
    return stderr_tail.substr(at + prefix.size(), end == std::string::npos ? std::string::npos : end - at - prefix.size());
}

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

}  // namespace

CpuVerdict interpret_cpu_check(const ProcessResult& ended, const std::optional<nlohmann::json>& result,
                               const std::string& stderr_tail, double timeout_s) {
    auto stage = last_stage(stderr_tail);
    if (ended.timed_out) {
        return {kCrashedOrTimedOut, "hang",
                fmt::format("still running after {:g} s (lab.yaml timeout_s){}: an endless loop in your code?", timeout_s,
                            stage.empty() ? "" : ", last at " + stage)};
    }
    if (ended.signal != 0) {
        std::string name = strsignal(ended.signal) ? strsignal(ended.signal) : "a signal";
        return {kCrashedOrTimedOut, "crashed",
                fmt::format("your code crashed ({}, signal {}){}", name, ended.signal,
                            stage.rfind("crashed on ", 0) == 0 ? " " + stage : stage.empty() ? "" : " while " + stage)};
    }
    if (!result || !result->is_object() || !result->contains("status")) {
        return {kCrashedOrTimedOut, "crashed",
                fmt::format("the CPU program ended (exit {}) without a result{}", ended.exit_code,
                            stage.empty() ? "" : "; last at " + stage)};
    }
    auto status = result->value("status", std::string());
    auto message = result->value("message", std::string());
    if (status == "correct") return {kGradedCorrect, "correct", message};
    std::string text = message + "\n";
    if (result->contains("first_wrong")) text += first_wrong_text(result->at("first_wrong"));
    if (!text.empty() && text.back() == '\n') text.pop_back();
    return {kGradedIncorrect, status == "threw" ? "threw" : "incorrect", text};
}

GradeOutcome grade_cpu_variant(const Workspace& ws, const GradeRequest& request, const LabSpec& lab,
                               const VariantSpec& variant) {
    GradeOutcome out;
    std::string target = request.lab + "/" + request.variant;
    double max_points = lab.scoring.correctness;
    if (request.build) {
        auto build = build_with_progress(ws.build_dir, ws.cpu_target(lab.id, request.solutions), false);
        if (!build.ok) return build_failure(target, build);
    }
    auto program = std::filesystem::absolute(ws.cpu_executable(lab.id, request.solutions));  // it runs in work_dir
    if (!std::filesystem::exists(program)) {
        out.exit_code = kBuildFailed;
        out.text = fmt::format("{}: {} is not built; build it with `cmake --build {} --target {}` (or grade without "
                               "--no-build)\n", target, program.string(), ws.build_dir.string(),
                               ws.cpu_target(lab.id, request.solutions));
        out.json = {{"target", target}, {"outcome", outcome_name(Outcome::build_failed)}, {"message", out.text}};
        return out;
    }
    ProcessSpec spec;
    auto work_dir = std::filesystem::temp_directory_path() / fmt::format("roofline-{}-{}-cpu", ::getpid(), variant.name);
    std::filesystem::remove_all(work_dir);
    std::filesystem::create_directories(work_dir);
    auto result_file = work_dir / "result.json";
    spec.argv = {program.string(), "--part", variant.op, "--result", result_file.string()};
    spec.work_dir = work_dir;
    spec.output_file = work_dir / "stdout.txt";
    spec.error_file = work_dir / "stderr.txt";
    spec.limits.timeout_s = lab.timeout_s;
    if (auto sandbox = sandbox_from_environment()) {
        // Under roofline batch: the student's code runs in the sandbox like a lab program,
        // seeing the system and its program, writing only its working folder.
        spec.argv = sandboxed_argv(*sandbox, {{program}, {work_dir}, work_dir}, spec.argv);
    }
    auto ended = run_process(spec);
    std::optional<nlohmann::json> result;
    if (std::filesystem::exists(result_file)) {
        std::ifstream in(result_file);
        auto parsed = nlohmann::json::parse(in, nullptr, false);
        if (!parsed.is_discarded()) result = parsed;
    }
    auto verdict = interpret_cpu_check(ended, result, file_tail(spec.error_file), lab.timeout_s);
    std::filesystem::remove_all(work_dir);

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
