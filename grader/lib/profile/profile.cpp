#include "profile.hpp"

#include "build_progress.hpp"
#include "diagnosis.hpp"
#include "exit_code.hpp"
#include "file_text.hpp"
#include "kernel_file.hpp"
#include "hardware.hpp"
#include "input_error.hpp"
#include "ncu_csv.hpp"
#include "ncu_metrics.hpp"
#include "prediction_log.hpp"
#include "process.hpp"
#include "lab_run.hpp"
#include "source_hash.hpp"
#include "tool_run.hpp"
#include "units.hpp"

#include <fmt/format.h>

#include <tuple>
#include <utility>

#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <random>
#include <sstream>

namespace roofline {

namespace {

ProfileOutcome refused(int code, const std::string& target, const std::string& outcome, const std::string& message) {
    ProfileOutcome out;
    out.exit_code = code;
    out.text = fmt::format("{}: {}\n", target, message);
    out.json = {{"target", target}, {"outcome", outcome}, {"message", message}};
    return out;
}

// The roofs the grader scores with, for the device the profile ran on (or --hardware).
void add_ceilings(const Workspace& ws, const std::string& hardware, const std::string& device_name, Dtype dtype,
                  ProfileInput& input) {
    auto profiles = load_profiles(ws.root / "hardware");
    const HardwareProfile* profile =
        hardware.empty() ? match_device(profiles, device_name) : &find_profile(profiles, hardware);
    if (!profile || !profile->supports(dtype)) return;  // ncu's own DRAM peak stands in
    std::optional<MeasuredCeilings> measured;
    if (std::filesystem::exists(ws.measured_ceilings(profile->id))) measured = load_measured(ws.measured_ceilings(profile->id));
    auto choice = choose_ceiling(*profile, measured ? &*measured : nullptr, dtype);
    input.dram_bytes_per_s = choice.ceiling.bandwidth_tbs * 1e12;
    input.dram_origin = choice.bandwidth_origin;
    input.peak_flops_per_s = choice.ceiling.peak_tflops * 1e12;
    input.peak_origin = choice.peak_origin;
    if (input.gpu.empty()) input.gpu = profile->name;
}

std::uint64_t fresh_seed() {
    std::random_device device;
    return (std::uint64_t(device()) << 32) ^ device();
}

}  // namespace

std::vector<std::string> ncu_profile_command(const std::filesystem::path& ncu, const std::filesystem::path& report,
                                             const std::vector<std::string>& program_argv,
                                             const std::vector<std::string>& metrics) {
    std::vector<std::string> argv{ncu.string(),
                                  "--target-processes", "all",
                                  "--profile-from-start", "off",  // only the cudaProfilerStart/Stop range
                                  "--clock-control", "none",      // the clocks grading runs at
                                  "--cache-control", "all",       // caches flushed before each replay pass
                                  "--replay-mode", "kernel",
                                  "--metrics", fmt::format("{}", fmt::join(metrics, ",")),
                                  "--export", report.string(),
                                  "--force-overwrite"};
    argv.insert(argv.end(), program_argv.begin(), program_argv.end());
    return argv;
}

std::vector<std::string> sandboxed_ncu_command(const Sandbox& sandbox, const std::filesystem::path& ncu,
                                               const std::filesystem::path& executable,
                                               const std::filesystem::path& work_dir,
                                               const std::vector<std::string>& ncu_argv) {
    std::vector<std::filesystem::path> read_only{executable};
    auto install = ncu_install_folders(ncu);
    read_only.insert(read_only.end(), install.begin(), install.end());
    return sandboxed_argv(sandbox, {read_only, {std::filesystem::temp_directory_path(), work_dir}, work_dir}, ncu_argv);
}

std::vector<std::filesystem::path> ncu_install_folders(const std::filesystem::path& ncu,
                                                       const std::filesystem::path& vendor_folder) {
    namespace fs = std::filesystem;
    std::vector<fs::path> folders;
    std::error_code ec;
    auto home = fs::canonical(ncu, ec).parent_path();
    if (ec || home.empty()) return folders;
    folders.push_back(home);
    // The CUDA Toolkit's bin/ncu is a launcher script: it runs the ncu inside a folder named
    // nsight-compute-VERSION beside bin/ (often a link to the vendor folder) or under the vendor folder.
    for (const auto& entry : fs::directory_iterator(home.parent_path(), ec)) {
        if (!entry.path().filename().string().starts_with("nsight-compute")) continue;
        auto target = fs::canonical(entry.path(), ec);
        if (!ec) folders.push_back(target);
    }
    if (auto vendor = fs::canonical(vendor_folder, ec); !ec && fs::is_directory(vendor, ec)) folders.push_back(vendor);
    return folders;
}

ProfileOutcome profile_variant(const Workspace& ws, const ProfileRequest& request) {
    std::string target = request.lab + "/" + request.variant;
    auto lab = load_lab(ws.lab_yaml(request.lab));
    const auto& variant = lab.variant(request.variant);
    auto kernel_file = existing_kernel_file(ws, lab, variant, request.solutions);
    ProfileInput input;
    input.target = target;
    input.shape = shape_text(variant.timed);
    input.model = lab.work(variant, variant.timed);
    auto log = load_log(request.log);
    const Prediction* prediction =
        log.find_current(lab.id, variant.name, input.shape, hash_file(kernel_file));
    if (prediction) input.predicted_bytes = prediction->predicted_dram_bytes;

    std::string csv_text, csv_source;
    ProfileOutcome out;
    if (!request.csv_file.empty()) {
        // A table recorded earlier: read it again, record nothing.
        if (!std::filesystem::exists(request.csv_file)) {
            throw InputError(request.csv_file, 0, "no such file; give the CSV that `ncu --csv --page raw` wrote");
        }
        csv_text = read_file_text(request.csv_file);
        csv_source = request.csv_file.string();
        // A failure is read only off ncu's own lines (==ERROR==, ==WARNING==, ...): a file that merely
        // mentions ERR_NVGPUCTRPERM (a README given by mistake) is no table, not a refused profiler.
        std::string tool_lines;
        std::istringstream lines(csv_text);
        for (std::string line; std::getline(lines, line);) {
            if (line.rfind("==", 0) == 0) tool_lines += line + "\n";
        }
        if (auto failure = ncu_failure(tool_lines)) {
            return refused(kToolUnavailable, target, "profiler_unavailable", failure->message);
        }
        add_ceilings(ws, request.hardware, "", variant.dtype, input);
    } else {
        auto ncu = find_tool("ncu", "ROOFLINE_NCU");
        if (ncu.empty()) {
            return refused(kToolUnavailable, target, "profiler_unavailable",
                           missing_tool_message("ncu", "ROOFLINE_NCU",
                                                "it comes with the CUDA Toolkit and as NVIDIA's nsight-compute package") +
                               ". `roofline grade` does not need it.");
        }
        if (request.build) {
            auto build = build_with_progress(ws.build_dir, ws.lab_target(lab.id, request.solutions), true);
            if (!build.ok) {
                return refused(kBuildFailed, target, "build_failed",
                               fmt::format("the build failed; the compiler said:\n{}", build.output));
            }
        }
        auto work_dir = std::filesystem::temp_directory_path() / fmt::format("roofline-{}-profile-{}", ::getpid(),
                                                                             variant.name);
        std::filesystem::remove_all(work_dir);
        std::filesystem::create_directories(work_dir);
        auto result_file = work_dir / "result.json";
        auto report_file = work_dir / (variant.name + ".ncu-rep");
        const auto executable = ws.lab_executable(lab.id, request.solutions);
        std::vector<std::string> program{executable.string()};
        auto job = once_job(lab, variant, {variant.timed}, request.seed ? *request.seed : fresh_seed(), result_file);
        auto arguments = once_arguments(job);
        program.insert(program.end(), arguments.begin(), arguments.end());
        double timeout_s = std::min(600.0, std::max(120.0, 4 * lab.timeout_s));
        auto profile_with = [&](const std::vector<std::string>& metrics) {
            auto command = ncu_profile_command(ncu, report_file, program, metrics);
            if (auto sandbox = sandbox_from_environment()) {
                command = sandboxed_ncu_command(*sandbox, ncu, executable, work_dir, command);
            }
            auto result = run_child(command, timeout_s, work_dir);
            return std::pair{result, read_file_text(work_dir / "child-output.txt")};
        };
        auto [child, output] = profile_with(ncu_metric::all());
        // A GPU without an architecture's own counters (wgmma's on anything but sm_90): again
        // with the portable ones; the report lists what is missing.
        if (auto failure = ncu_failure(output); failure && failure->kind == NcuFailure::Kind::unknown_metric) {
            std::tie(child, output) = profile_with(ncu_metric::portable());
        }
        if (auto failure = ncu_failure(output)) {
            std::filesystem::remove_all(work_dir);
            return refused(kToolUnavailable, target, "profiler_unavailable", failure->message);
        }
        auto run = interpret(child, job, timeout_s);
        if (run.outcome != Outcome::correct) {
            std::filesystem::remove_all(work_dir);
            int code = run.outcome == Outcome::incorrect ? kGradedIncorrect : kCrashedOrTimedOut;
            if (run.result.status == protocol::JobStatus::cuda_error &&
                run.message.find("no CUDA-capable device") != std::string::npos)
                code = kNoDevice;
            return refused(code, target, "not_profiled",
                           fmt::format("{} (under ncu); the profile needs a correct run first: `roofline run {}`\n{}",
                                       run.message, target, run.child.output_tail));
        }
        input.gpu = run.result.device->name;
        add_ceilings(ws, request.hardware, input.gpu, variant.dtype, input);
        // The table, from the report file: the lab program's own output stays out of it.
        auto csv_file = work_dir / (variant.name + ".csv");
        ProcessSpec spec;
        spec.argv = {ncu.string(), "--import", report_file.string(), "--csv", "--page", "raw", "--print-units", "base"};
        spec.output_file = csv_file;
        spec.error_file = work_dir / "import-errors.txt";
        spec.limits.timeout_s = 120;
        auto imported = run_process(spec);
        csv_text = read_file_text(csv_file);
        csv_source = csv_file.string();
        if (!imported.ok()) {
            auto message = fmt::format("ncu could not read back its own report ({}): {}", report_file.string(),
                                       file_tail(spec.error_file, 2000));
            return refused(kToolUnavailable, target, "profiler_unavailable", message);
        }
        // Kept beside the grading results: the table, and the report for Nsight Compute's window.
        auto results = ws.results_dir(lab.id, request.solutions);
        out.csv_saved = results / (variant.name + ".ncu.csv");
        out.report_saved = results / (variant.name + ".ncu-rep");
        std::error_code error;
        std::filesystem::create_directories(results, error);
        if (!error) std::filesystem::copy_file(csv_file, out.csv_saved, std::filesystem::copy_options::overwrite_existing, error);
        if (!error) {
            std::filesystem::copy_file(report_file, out.report_saved, std::filesystem::copy_options::overwrite_existing,
                                       error);
        }
        if (error) {
            throw InputError(results, 0, fmt::format("cannot keep the profile's table and report here ({}); check the "
                                                     "folder is writable", error.message()));
        }
        std::filesystem::remove_all(work_dir);
    }

    auto csv = parse_ncu_csv(csv_text, csv_source);
    input.launches = csv.launches;
    if (input.launches.empty() && !request.csv_file.empty()) {
        // A file the student gave: bad input (exit 2), not a profiler that is missing or refused.
        throw InputError(request.csv_file, 0,
                         fmt::format("holds no kernel rows of an ncu table{}; give the CSV that `ncu --csv --page raw "
                                     "--print-units base` wrote (or `ncu --import REPORT --csv --page raw`)",
                                     csv.tool_lines.empty() ? "" : " (its last tool line: " + csv.tool_lines.back() + ")"));
    }
    if (input.launches.empty()) {
        return refused(kToolUnavailable, target, "profiler_unavailable",
                       "ncu profiled no kernel of the variant (its table is empty); " +
                           (csv.tool_lines.empty() ? std::string("ncu said nothing more")
                                                   : "ncu said: " + csv.tool_lines.back()));
    }
    if (input.gpu.empty()) input.gpu = "the GPU the CSV came from";
    out.report = build_profile_report(input);
    out.text = profile_text(*out.report);
    out.json = profile_json(*out.report);
    out.json["outcome"] = "profiled";
    out.json["conditions"] = request.csv_file.empty()
                                 ? "one launch at the timed shape; clocks not locked (--clock-control none); caches "
                                   "flushed before each replay pass (--cache-control all)"
                                 : "read from " + request.csv_file.string();
    out.text += request.csv_file.empty()
                    ? "  how       one launch at the timed shape, clocks not locked (as in grading), caches flushed by "
                      "ncu before each replay pass (as grading flushes the L2 before each sample)\n"
                    : fmt::format("  how       read from {}\n", request.csv_file.string());
    // What the counters point at, beside the student's own diagnosis of this source, if any.
    auto shown = causes_shown(*out.report);
    out.json["causes_shown"] = shown;
    out.text += fmt::format("  causes    the counters show: {} (roofline diagnose --help lists them)\n", fmt::join(shown, ", "));
    auto source_hash = hash_file(kernel_file);
    const Diagnosis* diagnosis = nullptr;
    for (const auto& d : log.diagnoses) {
        if (d.lab == lab.id && d.variant == variant.name && d.source_hash == source_hash) diagnosis = &d;
    }
    if (diagnosis) {
        bool matches = std::find(shown.begin(), shown.end(), diagnosis->cause) != shown.end();
        out.text += fmt::format("  diagnosis you named {}: {}\n", diagnosis->cause,
                                matches ? "the counters agree" : "the counters do not show it; read the rows above again");
        out.json["diagnosis"] = {{"cause", diagnosis->cause}, {"why", diagnosis->why}, {"matches_counters", matches}};
    } else {
        out.text += fmt::format("  diagnosis none yet: roofline diagnose {} --cause ... --why \"...\"\n", target);
    }
    if (!out.csv_saved.empty()) {
        out.text += fmt::format("  kept      {} (the table), {} (open it in Nsight Compute)\n", out.csv_saved.string(),
                                out.report_saved.string());
        out.json["csv"] = out.csv_saved.string();
        out.json["ncu_report"] = out.report_saved.string();
        ProfileEntry entry;
        entry.prediction_id = prediction ? prediction->id : "";
        entry.lab = lab.id;
        entry.variant = variant.name;
        entry.shape = input.shape;
        entry.dram_bytes = out.report->dram_bytes();
        entry.model_bytes = input.model.bytes;
        entry.gpu = input.gpu;
        entry.profiled_at = utc_now_iso8601();
        entry.source_hash = source_hash;
        entry.causes = shown;
        entry.figures = cause_figures(*out.report);
        append_profile(request.log, entry);
    }
    out.exit_code = kGradedCorrect;
    return out;
}

}  // namespace roofline
