// roofline grade LAB/VARIANT (or LAB --all) and roofline run LAB/VARIANT.
#include "command.hpp"
#include "exit_code.hpp"
#include "grade.hpp"
#include "hardware.hpp"
#include "input_error.hpp"
#include "lab_aliases.hpp"
#include "number_flags.hpp"
#include "output_file.hpp"
#include "report.hpp"
#include "sanitize.hpp"
#include "stage_trace.hpp"
#include "units.hpp"

#include <fmt/format.h>


#include <iostream>
#include <limits>

namespace roofline::cli {

namespace {

struct GradeFlags {
    std::string target;
    bool all = false;
    bool solutions = false;
    bool no_build = false;
    bool json = false;
    std::string log;
    std::string hardware;
    std::string gradescope;
    std::optional<std::uint64_t> seed;
    bool score_without_prediction = false;
    std::string sanitize;  // run --sanitize TOOL: under compute-sanitizer
};

GradeRequest make_request(const Context& context, const GradeFlags& f, const std::string& lab,
                          const std::string& variant, bool verify_only) {
    GradeRequest r;
    r.lab = lab;
    r.variant = variant;
    r.solutions = f.solutions;
    r.verify_only = verify_only;
    r.build = !f.no_build;
    r.log = f.log.empty() ? context.workspace().default_log() : std::filesystem::path(f.log);
    r.hardware = f.hardware;
    r.seed = f.seed;
    r.require_prediction = !f.score_without_prediction;
    return r;
}

// The ladder: one row per variant, after grading them all.
void print_ladder(const std::vector<std::pair<std::string, GradeOutcome>>& rows) {
    fmt::print("\n{:<24} {:>12} {:>12} {:>9} {:>10} {:>8}  {}\n", "variant", "time", "rate", "% peer", "% roofline",
               "points", "outcome");
    for (const auto& [name, o] : rows) {
        if (o.score) {
            const auto& s = *o.score;
            fmt::print("{:<24} {:>12} {:>8.4g} {:<4}{:>8.1f}% {:>9.1f}% {:>8.1f}  {}\n", name, seconds(s.variant.median_s),
                       s.achieved, s.unit == "TB/s" ? "TB/s" : "TF/s", 100 * s.fraction_of_peer,
                       100 * s.fraction_of_roofline, s.total(), s.verdict);
        } else if (o.json.is_object() && o.json.value("graded_on", "") == "cpu") {
            fmt::print("{:<24} {:>12} {:>12} {:>9} {:>10} {:>8g}  {} (on the CPU)\n", name, "-", "-", "-", "-",
                       o.json["points"].value("total", 0.0), o.json.value("outcome", ""));
        } else {
            fmt::print("{:<24} {:>12} {:>12} {:>9} {:>10} {:>8}  exit {}\n", name, "-", "-", "-", "-", "-", o.exit_code);
        }
    }
}

void run_grade(Context& context, const GradeFlags& f, bool verify_only) {
    trace_stage("grade: start");
    auto ws = context.build_workspace();
    LabGradeRequest request;
    if (f.all) {
        if (f.target.find('/') != std::string::npos) throw InputError("--all takes a lab (e.g. 03-gemm), not LAB/VARIANT");
        request.lab = resolve_lab_name(f.target);  // an old name (lab_aliases.hpp): its alias, with a note
    } else {
        std::string variant;
        std::tie(request.lab, variant) = split_target(f.target);
        request.variants.push_back(variant);
    }
    if (!std::filesystem::exists(ws.lab_yaml(request.lab))) {
        throw InputError(fmt::format("no lab '{}' under {}; see `roofline list`", request.lab, ws.labs_dir().string()));
    }
    // Where --gradescope writes, checked before the build and the grading (with --all, one
    // VARIANT-NAME file per variant beside it).
    if (!f.gradescope.empty()) check_output_file(f.gradescope, "--gradescope");
    request.shared = make_request(context, f, request.lab, "", verify_only);
    // Each variant's report as its grading ends (grade_lab: both passes, in grade.hpp).
    auto print_graded = [&](const GradedVariant& graded) {
        const auto& [lab, variant, outcome] = graded;
        if (!f.json) fmt::print("{}", outcome.text);
        if (!f.json && !f.all && !outcome.debrief.empty()) {
            fmt::print("\n--- debrief ({}/debrief/{}.md; again with `roofline debrief {}/{}`) ---\n\n{}", lab, variant,
                       lab, variant, outcome.debrief);
        }
        if (!f.gradescope.empty() && !outcome.gradescope.is_null()) {
            auto path = std::filesystem::path(f.gradescope);
            if (f.all) path = path.parent_path() / fmt::format("{}-{}", variant, path.filename().string());
            write_output_file(path, outcome.gradescope.dump(2) + "\n", "--gradescope");
        }
    };
    auto graded = grade_lab(ws, request, print_graded);
    trace_stage("grade: report");
    nlohmann::json all_json = nlohmann::json::array();
    std::vector<std::pair<std::string, GradeOutcome>> rows;
    for (auto& g : graded.graded) {
        all_json.push_back(g.outcome.json);
        rows.emplace_back(g.variant, std::move(g.outcome));
    }
    if (f.json) fmt::print("{}\n", (f.all ? all_json : all_json[0]).dump(2));
    else if (f.all && !verify_only) print_ladder(rows);
    if (!f.json && f.all) {
        std::vector<std::string> opened;
        for (const auto& [variant, o] : rows) {
            if (!o.debrief.empty()) opened.push_back(variant);
        }
        if (!opened.empty() && !graded.graded.empty()) {
            fmt::print("\ndebriefs open now (roofline debrief {}/VARIANT): {}\n", graded.graded.front().lab,
                       fmt::join(opened, ", "));
        }
    }
    context.exit_code = graded.exit_code;
}

void add_common(CLI::App* cmd, GradeFlags& f) {
    cmd->add_option("target", f.target, "LAB/VARIANT, e.g. 01-memory-roof/copy_naive_fp32 (see `roofline list`)")
        ->required();
    cmd->add_flag("--solutions", f.solutions, "use the reference solutions/ instead of labs/");
    cmd->add_flag("--no-build", f.no_build, "do not rebuild the lab program first");
    cmd->add_flag("--json", f.json, "print the result as JSON");
    cmd->add_option("--seed", f.seed, "the first random seed (default: fresh each run)")
        ->check(whole_in(0, std::numeric_limits<std::uint64_t>::max()));
}

}  // namespace

void add_grade_commands(CLI::App& app, Context& context) {
    static GradeFlags grade_flags, run_flags;
    auto* grade = app.add_subcommand(
        "grade", "check a variant on fresh inputs, time it beside its peer, score it against the roofline");
    add_common(grade, grade_flags);
    grade->add_flag("--all", grade_flags.all, "grade every variant of the lab (target is then LAB) and print the ladder");
    grade->add_option("--log", grade_flags.log, "the prediction log (default: predictions.yaml at the course root)")->check(file_path());
    grade->add_option("--hardware", grade_flags.hardware, "score against this profile instead of the detected GPU's");
    grade->add_option("--gradescope", grade_flags.gradescope, "also write a Gradescope results.json here")->check(file_path());
    grade->add_flag("--score-without-prediction", grade_flags.score_without_prediction,
                    "grade a variant that has no prediction, with no prediction points (what `roofline batch` does)");
    grade->footer("Needs a prediction for the variant's current source first (roofline predict); --solutions needs none.\n"
                  "Exit codes: 0 correct, 1 incorrect, 2 bad input, 3 no prediction, 4 no CUDA device,\n"
                  "5 build failed, 6 crashed or timed out, 7 needs another GPU (e.g. a Blackwell-only lab on a Hopper GPU),\n"
                  "8 refused: the timed work was not the kernel file's own (forbidden_call, forbidden_symbol, timing_refused).");
    grade->callback([&context] { run_grade(context, grade_flags, false); });

    auto* run = app.add_subcommand("run", "check a variant's correctness only: no timing, no prediction needed");
    add_common(run, run_flags);
    run->add_option("--sanitize", run_flags.sanitize,
                    "run it under compute-sanitizer instead: memcheck (the default), racecheck, synccheck or initcheck; "
                    "findings shown as file:line")
        ->expected(0, 1);
    run->callback([&context, run] {
        if (run->count("--sanitize") == 0) return run_grade(context, run_flags, true);
        auto ws = context.build_workspace();
        auto [lab, variant] = split_target(run_flags.target);
        SanitizeRequest request{lab, variant, run_flags.sanitize.empty() ? "memcheck" : run_flags.sanitize,
                                run_flags.solutions, !run_flags.no_build, run_flags.seed};
        auto outcome = sanitize_variant(ws, request);
        if (run_flags.json) fmt::print("{}\n", outcome.json.dump(2));
        else fmt::print("{}", outcome.text);
        context.exit_code = outcome.exit_code;
    });
}

}  // namespace roofline::cli
