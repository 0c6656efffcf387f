#include "grading.hpp"
#include "file_text.hpp"

#include <fmt/format.h>

#include <cstring>

#include <fstream>
#include <sstream>

namespace roofline::batch {

namespace fs = std::filesystem;

namespace {

std::string variant_of(const nlohmann::json& j) {
    auto target = j.value("target", std::string());
    auto slash = target.find('/');
    return slash == std::string::npos ? target : target.substr(slash + 1);
}

double number_at(const nlohmann::json& j, const char* a, const char* b) {
    if (j.contains(a) && j[a].is_object() && j[a].contains(b) && j[a][b].is_number()) return j[a][b].get<double>();
    return 0;
}

std::string join_lines(const std::vector<std::string>& lines) {
    std::string out;
    for (const auto& line : lines) out += (out.empty() ? "" : "\n") + line;
    return out;
}

}  // namespace

GradingRun run_grading(const GradeJob& job) {
    GradingRun run;
    run.timeout_s = job.timeout_s;
    const auto& ws = job.staged->workspace;
    fs::create_directories(job.out_dir / "gradescope");
    std::vector<std::string> argv{job.roofline.string(),
                                  "--root", ws.root.string(),
                                  "--build-dir", ws.build_dir.string(),
                                  "grade", job.lab, "--all", "--no-build", "--json",
                                  "--score-without-prediction",
                                  "--log", ws.default_log().string(),
                                  "--seed", std::to_string(job.seed),
                                  "--gradescope", (job.out_dir / "gradescope" / "results.json").string()};
    if (!job.hardware.empty()) argv.insert(argv.end(), {"--hardware", job.hardware});

    // A temporary working folder: the grader's own temporaries go there too.
    auto work = ws.root / "work";
    fs::create_directories(work);
    ProcessSpec spec;
    spec.argv = argv;
    spec.work_dir = work;
    spec.output_file = job.out_dir / "grade.json";
    spec.error_file = job.out_dir / "grade-stderr.txt";
    spec.env = {{"TMPDIR", work.string()}, {"ROOFLINE_ROOT", ""}, {"ROOFLINE_CACHE_DIR", job.cache_dir.string()}};
    if (!job.gpu.empty()) spec.env["CUDA_VISIBLE_DEVICES"] = job.gpu;
    spec.env[kSandboxVariable] = job.sandbox ? sandbox_to_environment(*job.sandbox) : "";  // "": unset
    spec.limits.timeout_s = job.timeout_s;
    spec.limits.cpu_s = static_cast<long long>(4 * job.timeout_s) + 60;
    spec.limits.file_bytes = 256LL << 20;
    run.process = run_process(spec);
    run.stdout_text = read_file_text(spec.output_file);
    run.stderr_text = file_tail(spec.error_file, 4000);
    fs::remove_all(work);
    return run;
}

SubmissionResult ungraded_result(const std::string& submission, const LabSpec& lab, SubmissionOutcome outcome,
                                  const std::string& reason) {
    SubmissionResult r;
    r.submission = submission;
    r.outcome = outcome;
    r.reason = reason;
    for (const auto& v : lab.variants) r.variants.push_back({v.name, outcome, 0, lab.scoring.total(), 0, reason});
    add_up(r);
    return r;
}

SubmissionResult classify_grading(const std::string& submission, const LabSpec& lab, const LogFacts& log,
                                  const GradingRun& run) {
    if (run.process.timed_out) {
        return ungraded_result(submission, lab, SubmissionOutcome::hang,
                               fmt::format("hang (timeout): grading ran past the batch's limit of {:g} s", run.timeout_s));
    }
    if (run.process.signal != 0) {
        return ungraded_result(submission, lab, SubmissionOutcome::crash,
                               fmt::format("the grader was killed by signal {} ({}); a resource limit?\n{}",
                                           run.process.signal, strsignal(run.process.signal), run.stderr_text));
    }
    auto parsed = nlohmann::json::parse(run.stdout_text, nullptr, false);
    if (parsed.is_object()) parsed = nlohmann::json::array({parsed});
    if (!parsed.is_array() || parsed.empty()) {
        auto why = run.stderr_text.empty() ? fmt::format("exit {} and no JSON", run.process.exit_code) : run.stderr_text;
        return ungraded_result(submission, lab, SubmissionOutcome::error, "the grader failed: " + why);
    }

    SubmissionResult r;
    r.submission = submission;
    SubmissionOutcome kernels = SubmissionOutcome::graded;
    std::vector<std::string> failures;
    for (const auto& v : lab.variants) {
        const nlohmann::json* found = nullptr;
        for (const auto& j : parsed) {
            if (variant_of(j) == v.name) found = &j;
        }
        VariantResult vr{v.name, SubmissionOutcome::error, 0, lab.scoring.total(), 0, ""};
        if (!found) {
            // `grade --all` stops after the first variant when there is no device: the rest alike,
            // and the reason already says why.
            vr.outcome = variant_outcome(parsed.back());
            vr.verdict = "not graded: " + parsed.back().value("message", parsed.back().value("verdict", std::string()));
            kernels = worse(kernels, vr.outcome);
            r.variants.push_back(vr);
            continue;
        } else {
            const auto& j = *found;
            vr.outcome = variant_outcome(j);
            vr.points = number_at(j, "points", "total");
            if (j.contains("points") && j["points"].contains("max")) vr.max_points = number_at(j, "points", "max");
            if (j.contains("fraction_of_roofline")) vr.fraction_of_roofline = j["fraction_of_roofline"].get<double>();
            vr.verdict = j.value("verdict", j.value("message", std::string()));
            // A CPU part's points are all correctness points (cpu_grade.hpp).
            r.correctness += j.value("graded_on", "") == "cpu" ? number_at(j, "points", "total")
                                                                : number_at(j, "points", "correctness");
            r.performance += number_at(j, "points", "performance");
            r.prediction += number_at(j, "points", "prediction");
            if (j.contains("shared_gpu") && j["shared_gpu"].is_object() && j["shared_gpu"].contains("note") &&
                j["shared_gpu"]["note"].is_string()) {
                r.shared_gpu.push_back({v.name, j["shared_gpu"]["note"].get<std::string>()});
            }
        }
        if (vr.outcome != SubmissionOutcome::graded) failures.push_back(fmt::format("{}: {}: {}", v.name, outcome_name(vr.outcome), vr.verdict));
        kernels = worse(kernels, vr.outcome);
        r.variants.push_back(vr);
    }
    add_up(r);
    r.gap_notes = static_cast<int>(log.gap_noted.size());
    r.logged_hours = log.logged_hours;

    std::vector<std::string> reason = failures;
    r.outcome = kernels;
    if (log.state != LogState::present) {
        if (kernels == SubmissionOutcome::graded) {
            r.outcome = log.state == LogState::missing ? SubmissionOutcome::no_predictions : SubmissionOutcome::malformed_predictions;
        }
        reason.push_back(log.message);
    }
    reason.insert(reason.end(), log.notes.begin(), log.notes.end());
    r.reason = join_lines(reason);
    return r;
}

nlohmann::json submission_gradescope(const LabSpec& lab, const SubmissionResult& result,
                                     const fs::path& variant_files_dir) {
    nlohmann::json tests = nlohmann::json::array();
    double score = 0, max_score = 0;
    for (const auto& v : result.variants) {
        auto file = variant_files_dir / (v.name + "-results.json");
        auto j = fs::exists(file) ? nlohmann::json::parse(read_file_text(file), nullptr, false) : nlohmann::json();
        if (j.is_object() && j.contains("tests")) {
            for (const auto& t : j["tests"]) tests.push_back(t);
        } else {
            tests.push_back({{"name", lab.id + "/" + v.name},
                             {"score", 0},
                             {"max_score", v.max_points},
                             {"output", outcome_name(v.outcome) + ": " + (v.verdict.empty() ? result.reason : v.verdict)},
                             {"visibility", "visible"}});
        }
        score += v.points;
        max_score += v.max_points;
    }
    std::string output = fmt::format("{}: {}", lab.id, outcome_name(result.outcome));
    if (!result.reason.empty()) output += "\n" + result.reason;
    // Which variants were timed beside other processes, never the processes themselves (result.hpp);
    // each one's performance test says so too.
    if (!result.shared_gpu.empty()) {
        std::vector<std::string> variants;
        for (const auto& n : result.shared_gpu) variants.push_back(n.variant);
        output += fmt::format("\nshared GPU: other processes used the GPU while {} {} timed, so {} may be slower "
                              "than the GPU's own; the score is as measured",
                              fmt::join(variants, ", "), variants.size() == 1 ? "was" : "were",
                              variants.size() == 1 ? "its time" : "their times");
    }
    return {{"score", score}, {"max_score", max_score}, {"output", output}, {"visibility", "visible"}, {"tests", tests}};
}

}  // namespace roofline::batch
