#include "sanitize.hpp"

#include "build_progress.hpp"
#include "exit_code.hpp"
#include "file_text.hpp"
#include "input_error.hpp"
#include "lab_spec.hpp"
#include "lab_run.hpp"
#include "sanitizer_output.hpp"
#include "tool_run.hpp"

#include <fmt/format.h>

#include <unistd.h>

#include <random>

namespace roofline {

SanitizeOutcome sanitize_variant(const Workspace& ws, const SanitizeRequest& request) {
    SanitizeOutcome out;
    std::string target = request.lab + "/" + request.variant;
    if (!is_sanitizer_tool(request.tool)) {
        throw InputError(fmt::format("--sanitize: '{}' is not a compute-sanitizer tool; use memcheck, racecheck, "
                                     "synccheck or initcheck", request.tool));
    }
    auto lab = load_lab(ws.lab_yaml(request.lab));
    const auto& variant = lab.variant(request.variant);
    auto kernel_file = ws.kernel_file(lab.id, request.solutions, variant.file);
    auto refuse = [&](int code, const std::string& outcome, const std::string& message) {
        out.exit_code = code;
        out.text = fmt::format("{}: {}\n", target, message);
        out.json = {{"target", target}, {"tool", request.tool}, {"outcome", outcome}, {"message", message}};
        return out;
    };
    auto sanitizer = find_tool("compute-sanitizer", "ROOFLINE_COMPUTE_SANITIZER");
    if (sanitizer.empty()) {
        return refuse(kToolUnavailable, "sanitizer_unavailable",
                      missing_tool_message("compute-sanitizer", "ROOFLINE_COMPUTE_SANITIZER",
                                           "it comes with the CUDA Toolkit"));
    }
    if (request.build) {
        auto build = build_with_progress(ws.build_dir, ws.lab_target(lab.id, request.solutions), true);
        if (!build.ok) return refuse(kBuildFailed, "build_failed", "the build failed; the compiler said:\n" + build.output);
    }
    // The verify shapes: small, odd sizes (tails), quick under the sanitizer's slowdown.
    std::vector<Shape> shapes;
    for (const auto& shape : lab.verify_shapes_for(variant)) {
        if (!lab.shape_refusal(variant, shape)) shapes.push_back(shape);
    }
    if (shapes.empty()) shapes.push_back(variant.timed);
    auto work_dir = std::filesystem::temp_directory_path() / fmt::format("roofline-{}-sanitize-{}", ::getpid(), variant.name);
    std::filesystem::remove_all(work_dir);
    std::filesystem::create_directories(work_dir);
    auto result_file = work_dir / "result.json";
    std::random_device device;
    std::uint64_t seed = request.seed ? *request.seed : (std::uint64_t(device()) << 32) ^ device();
    std::vector<std::string> argv{sanitizer.string(), "--tool", request.tool, "--print-limit", "50",
                                  ws.lab_executable(lab.id, request.solutions).string()};
    auto job = once_job(lab, variant, shapes, seed, result_file);
    auto arguments = once_arguments(job);
    argv.insert(argv.end(), arguments.begin(), arguments.end());
    double timeout_s = std::min(600.0, std::max(120.0, 10 * lab.timeout_s));
    auto child = run_child(argv, timeout_s, work_dir);
    auto output = read_file_text(work_dir / "child-output.txt");
    auto run = interpret(child, job, timeout_s);
    std::filesystem::remove_all(work_dir);

    auto report = parse_sanitizer_output(output);
    if (!report.error_count && report.findings.empty() && run.outcome != Outcome::correct) {
        return refuse(kCrashedOrTimedOut, "crashed",
                      fmt::format("the run under compute-sanitizer ended without the sanitizer's summary: {}\n{}",
                                  run.message, run.child.output_tail));
    }
    std::string shapes_text;
    for (const auto& s : shapes) shapes_text += (shapes_text.empty() ? "" : ", ") + shape_text(s);
    long long errors = report.error_count.value_or(static_cast<long long>(report.findings.size()));
    out.text = fmt::format("{} under compute-sanitizer --tool {} at {} (seed {}): {} error{}\n", target, request.tool,
                           shapes_text, seed, errors, errors == 1 ? "" : "s");
    nlohmann::json findings = nlohmann::json::array();
    int shown = 0;
    for (const auto& f : report.findings) {
        auto where = location_in(f, kernel_file.string());
        findings.push_back({{"what", f.what}, {"where", where}, {"locations", f.locations}, {"detail", f.detail}});
        if (shown++ >= kFindingsShown) continue;
        out.text += fmt::format("  {}. {}\n", shown, f.what);
        out.text += where.empty() ? "     (no source line: is the program built with -lineinfo?)\n"
                                  : fmt::format("     at {}{}\n", where, f.detail.empty() ? "" : " (" + f.detail + ")");
    }
    if (static_cast<int>(report.findings.size()) > kFindingsShown) {
        out.text += fmt::format("  ... and {} more (compute-sanitizer --tool {} on the lab program shows them all)\n",
                                report.findings.size() - kFindingsShown, request.tool);
    }
    std::string verdict = run.outcome == Outcome::correct ? "correct" : run.message;
    out.text += fmt::format("  check     {}\n", verdict);
    bool clean = errors == 0 && report.findings.empty();
    out.exit_code = clean && run.outcome == Outcome::correct ? kGradedCorrect
                    : run.outcome == Outcome::correct || run.outcome == Outcome::incorrect ? kGradedIncorrect
                                                                                      : kCrashedOrTimedOut;
    out.json = {{"target", target}, {"tool", request.tool}, {"outcome", clean ? "clean" : "findings"},
                {"errors", errors}, {"findings", findings}, {"check", verdict}, {"seed", seed}};
    return out;
}

}  // namespace roofline
