#include "profiling.hpp"

#include "file_text.hpp"
#include "prediction_log.hpp"
#include "process.hpp"

#include <fmt/format.h>

namespace roofline::batch {

namespace fs = std::filesystem;

bool scores_profiles(const LabSpec& lab) { return lab.scoring.byte_prediction > 0 || lab.scoring.diagnosis > 0; }

std::string profiler_missing_note(const LabSpec& lab, bool ncu_found) {
    if (ncu_found || !scores_profiles(lab)) return "";
    return fmt::format(
        "batch {}: ncu (Nsight Compute) was not found (on PATH, or ROOFLINE_NCU), so no submission is profiled: the "
        "{:g} points per variant that only a profile earns (byte prediction {:g}, diagnosis {:g}) are 0 for every "
        "submission. Everything else is graded as usual. To score them, install Nsight Compute beside the CUDA "
        "Toolkit and let users who are not root read the GPU's counters (the sandbox runs as your user; see "
        "README.md, \"Profiles under batch\"), then grade again with --force.",
        lab.id, lab.scoring.byte_prediction + lab.scoring.diagnosis, lab.scoring.byte_prediction,
        lab.scoring.diagnosis);
}

ProfilingRun profile_variants(const GradeJob& job, const Workspace& root, const LabSpec& lab, const fs::path& log,
                              double timeout_s, bool build) {
    ProfilingRun run;
    auto work = root.root / "profile-work";
    fs::create_directories(work);
    for (const auto& v : lab.variants) {
        if (v.cpu_graded) continue;
        ProcessSpec spec;
        spec.argv = {job.roofline.string(), "--root", root.root.string(), "--build-dir", root.build_dir.string(),
                     "profile", lab.id + "/" + v.name, "--json", "--log", log.string(),
                     "--seed", std::to_string(job.seed)};
        if (!build || run.profiled + int(run.failures.size()) > 0) spec.argv.push_back("--no-build");
        if (!job.hardware.empty()) spec.argv.insert(spec.argv.end(), {"--hardware", job.hardware});
        spec.work_dir = work;
        spec.output_file = work / (v.name + ".json");
        spec.error_file = work / (v.name + ".stderr");
        // As grading's: the same GPU, the same private temporaries, the same sandbox for the lab program.
        spec.env = {{"TMPDIR", work.string()}, {"ROOFLINE_ROOT", ""}, {"ROOFLINE_CACHE_DIR", job.cache_dir.string()}};
        if (!job.gpu.empty()) spec.env["CUDA_VISIBLE_DEVICES"] = job.gpu;
        spec.env[kSandboxVariable] = job.sandbox ? sandbox_to_environment(*job.sandbox) : "";
        spec.limits.timeout_s = timeout_s;
        auto result = run_process(spec);
        if (result.ok()) {
            ++run.profiled;
            continue;
        }
        auto said = file_tail(spec.output_file, 400);
        if (said.empty()) said = file_tail(spec.error_file, 400);
        run.failures.push_back(fmt::format("{}: {}: {}", v.name,
                                           result.timed_out ? "timed out" : fmt::format("exit {}", result.exit_code),
                                           said));
    }
    fs::remove_all(work);
    return run;
}

void copy_profiles(const fs::path& from, const fs::path& to) {
    if (!fs::exists(from)) return;
    for (const auto& entry : load_log(from).profiles) append_profile(to, entry);
}

}  // namespace roofline::batch
