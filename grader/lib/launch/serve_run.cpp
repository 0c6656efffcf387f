#include "serve_run.hpp"

#include "build_progress.hpp"
#include "child_run.hpp"
#include "device_query.hpp"
#include "exit_code.hpp"
#include "file_text.hpp"
#include "input_error.hpp"

#include <fmt/format.h>

#include <unistd.h>

namespace roofline {

ServeRun run_server(const Workspace& ws, const ServeRequest& request) {
    if (!std::filesystem::is_regular_file(request.config))
        throw InputError(fmt::format("{}: no such server configuration; the course's are in "
                                     "labs/10-production/server/incidents/", request.config.string()));
    ServeRun out;
    const char* target = request.solutions ? kDecodeServerSolutionTarget : kDecodeServerTarget;
    if (request.solutions && !std::filesystem::is_directory(ws.root / "solutions" / "10-production"))
        throw InputError("--solutions: this edition of the course has no solutions/10-production; run without it "
                         "(attention: student then runs your labs/10-production/kernels/01_decode_attention.cu)");
    if (request.attention != "" && request.attention != "plain" && request.attention != "student")
        throw InputError(fmt::format("--attention {}: give plain or student", request.attention));
    if (request.build) {
        auto build = build_with_progress(ws.build_dir, target, true);
        if (!build.ok) {
            out.refusal = fmt::format("build of {} failed:\n{}", target, build.output);
            out.exit_code = kBuildFailed;
            return out;
        }
    }
    if (auto missing = missing_gpu_driver()) {
        out.refusal = fmt::format("no server run: {}", *missing);
        out.exit_code = kNoDevice;
        return out;
    }
    auto work_dir = std::filesystem::temp_directory_path() / fmt::format("roofline-serve-{}", ::getpid());
    std::filesystem::create_directories(work_dir);
    auto result_file = work_dir / "server.json";
    std::vector<std::string> argv{(ws.build_dir / "labs" / target).string(), "--config",
                                  std::filesystem::absolute(request.config).string(), "--json", result_file.string()};
    if (request.check_steps > 0) argv.insert(argv.end(), {"--check", std::to_string(request.check_steps)});
    if (request.no_graph) argv.push_back("--no-graph");
    if (request.batch > 0) argv.insert(argv.end(), {"--batch", std::to_string(request.batch)});
    if (request.context >= 0) argv.insert(argv.end(), {"--context", std::to_string(request.context)});
    if (!request.attention.empty()) argv.insert(argv.end(), {"--attention", request.attention});
    if (request.plain_kernels) argv.push_back("--plain-kernels");
    auto run = run_child(argv, request.timeout_s, work_dir);
    out.output_tail = run.output_tail;
    std::string text = std::filesystem::exists(result_file) ? read_file_text(result_file) : "";
    std::filesystem::remove_all(work_dir);
    // 0: measured; 1: measured, and a checked step was outside the tolerance (the JSON says which).
    if (run.timed_out || run.signal != 0 || (run.exit_code != 0 && run.exit_code != 1) || text.empty()) {
        out.exit_code = run.exit_code == 2 ? kBadInput : kCrashedOrTimedOut;
        out.refusal = run.timed_out ? fmt::format("the decode server ran past {:.0f} s", request.timeout_s)
                      : run.signal ? fmt::format("the decode server was killed by signal {}", run.signal)
                                   : fmt::format("the decode server exited {} without a result", run.exit_code);
        out.refusal += ":\n" + run.output_tail;
        return out;
    }
    nlohmann::json server_output;
    try {
        server_output = nlohmann::json::parse(text);
    } catch (const nlohmann::json::exception& e) {
        out.exit_code = kCrashedOrTimedOut;
        out.refusal = fmt::format("the decode server's JSON does not parse: {}", e.what());
        return out;
    }
    std::string device = server_output.value("device", "");
    auto profiles = load_profiles(ws.root / "hardware");
    const HardwareProfile* profile =
        request.hardware.empty() ? match_device(profiles, device) : &find_profile(profiles, request.hardware);
    if (!profile)
        throw InputError(fmt::format("no hardware profile matches '{}'; name one with --hardware (hardware/*.yaml)", device));
    std::optional<MeasuredCeilings> measured;
    if (std::filesystem::exists(ws.measured_ceilings(profile->id))) measured = load_measured(ws.measured_ceilings(profile->id));
    out.report = serve_report(server_output, target, *profile, measured ? &*measured : nullptr);
    out.exit_code = out.report->check_ran && !out.report->check_passed ? kGradedIncorrect : 0;
    return out;
}

}  // namespace roofline
