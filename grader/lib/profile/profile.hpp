// `roofline profile LAB/VARIANT`: the variant's timed shape run once under Nsight Compute
// (the same lab program, `--mode once`: one launch inside cudaProfilerStart/Stop, ncu
// told to record only that range), the counters read back as CSV (ncu_csv.hpp) and
// reported beside the lab's model and the student's byte prediction (profile_report.hpp).
// Clocks are not locked (--clock-control none), as in grading; ncu flushes the caches
// before each replay pass (--cache-control all), as grading flushes the L2 before each
// sample. The DRAM bytes counted are appended to the prediction log.
#pragma once
#include "ncu_metrics.hpp"
#include "profile_report.hpp"
#include "sandbox.hpp"
#include "workspace.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

namespace roofline {

struct ProfileRequest {
    std::string lab, variant;
    bool solutions = false;
    bool build = true;
    std::filesystem::path log;
    std::string hardware;                   // profile id; empty: match the device's name
    std::filesystem::path csv_file;         // read this ncu CSV instead of running ncu (nothing is recorded)
    std::optional<std::uint64_t> seed;
};

struct ProfileOutcome {
    int exit_code = 0;
    std::string text;
    nlohmann::json json;
    std::optional<ProfileReport> report;
    std::filesystem::path csv_saved;     // ncu's table, kept beside the grading results
    std::filesystem::path report_saved;  // the .ncu-rep, to open in Nsight Compute's window
};

ProfileOutcome profile_variant(const Workspace& workspace, const ProfileRequest& request);

// The ncu command line for one lab program run (the metrics of ncu_metrics.hpp: all of them,
// or the portable ones where the GPU lacks an architecture's own).
std::vector<std::string> ncu_profile_command(const std::filesystem::path& ncu, const std::filesystem::path& report,
                                             const std::vector<std::string>& program_argv,
                                             const std::vector<std::string>& metrics = ncu_metric::all());

// Under `roofline batch` (ROOFLINE_SANDBOX set): that command inside the sandbox, as the lab
// program runs when graded. ncu starts the submission's program, so ncu goes in with it: it
// sees the system, its own folder, the lab program, and writes only the temporary folder and
// `work_dir` (its report, the program's result).
// The folders ncu needs to see to start: its own, and where the CUDA Toolkit's launcher
// script looks for the real program (nsight-compute-* beside bin/, and NVIDIA's vendor folder).
std::vector<std::filesystem::path> ncu_install_folders(const std::filesystem::path& ncu,
                                                       const std::filesystem::path& vendor_folder = "/opt/nvidia");
std::vector<std::string> sandboxed_ncu_command(const Sandbox& sandbox, const std::filesystem::path& ncu,
                                               const std::filesystem::path& executable,
                                               const std::filesystem::path& work_dir,
                                               const std::vector<std::string>& ncu_argv);

}  // namespace roofline
