// roofline ceilings: measure this GPU's practical ceilings and save them as
// its measured profile, which `grade` then scores against.
#include "command.hpp"
#include "device_query.hpp"
#include "hardware.hpp"
#include "input_error.hpp"
#include "prediction_log.hpp"
#include "build_target.hpp"
#include "child_run.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <unistd.h>

#include <fstream>

namespace roofline::cli {

namespace {

void run_ceilings(Context& context, const std::string& hardware, bool json_output) {
    auto ws = context.build_workspace();
    std::string why;
    auto device = first_device(&why);
    if (!device) {
        fmt::print(stderr, "ceilings: nothing to measure here: {}. Run this on the GPU you will grade on.\n", why);
        context.exit_code = kNoDevice;
        return;
    }
    auto profiles = load_profiles(ws.root / "hardware");
    const HardwareProfile* profile = hardware.empty() ? match_device(profiles, device->name) : &find_profile(profiles, hardware);
    if (!profile) throw InputError(fmt::format("no profile in hardware/ matches '{}'; add one, or pass --hardware", device->name));

    auto build = build_target(ws.build_dir, "roofline-ceilings");
    if (!build.ok) {
        fmt::print(stderr, "ceilings: the build failed:\n{}\n", build.output);
        context.exit_code = kBuildFailed;
        return;
    }
    auto work_dir = std::filesystem::temp_directory_path() / fmt::format("roofline-ceilings-{}", ::getpid());
    std::filesystem::create_directories(work_dir);
    auto result_file = work_dir / "ceilings.json";
    fmt::print(stderr, "measuring {} (about a minute)...\n", device->name);
    auto child = run_child({(ws.build_dir / "roofline-ceilings").string(), "--result", result_file.string()}, 600, work_dir);
    // The probe's answer read as a saved profile is (hardware.hpp): every figure checked, an error
    // naming the field. A missing or malformed answer is the probe's failure; its folder stays.
    MeasuredCeilings m;
    try {
        m = read_ceilings_probe(result_file);
    } catch (const InputError& e) {
        fmt::print(stderr, "ceilings: the probe failed: {}\n(its folder is kept: {})\n{}\n", e.what(), work_dir.string(),
                   child.output_tail);
        context.exit_code = kCrashedOrTimedOut;
        return;
    }
    m.profile_id = profile->id;
    m.measured_at = utc_now_iso8601();
    // Everything the probe measured, for --json (the figures above are checked; the rest is shown as it came).
    std::ifstream in(result_file);
    auto j = nlohmann::json::parse(in, nullptr, false);
    std::filesystem::remove_all(work_dir);
    auto file = ws.measured_ceilings(profile->id);
    save_measured(m, file);

    if (json_output) {
        j["saved_to"] = file.string();
        j["profile"] = profile->id;
        fmt::print("{}\n", j.dump(2));
        return;
    }
    double sheet_bw = profile->memory.bandwidth_tbs;
    fmt::print("{} (profile {}), measured {}\n", m.device_name, profile->id, m.measured_at);
    fmt::print("  {:<34} {:>10} {:>12} {:>7}\n", "ceiling", "measured", "datasheet", "ratio");
    auto row = [](const std::string& name, double measured, double sheet, const char* unit) {
        fmt::print("  {:<34} {:>7.4g} {:<3}{:>9.4g} {:<3}{:>6.1f}%\n", name, measured, unit, sheet, unit,
                   sheet > 0 ? 100 * measured / sheet : 0.0);
    };
    row("cudaMemcpy D2D (read + write)", m.memcpy_tbs, sheet_bw, "TB/s");
    row("copy kernel, 16-byte (read + write)", m.copy_kernel_tbs, sheet_bw, "TB/s");
    row("read-only kernel", m.read_only_tbs, sheet_bw, "TB/s");
    row("fp32 FMA kernel", m.fp32_fma_tflops, profile->peak.at(Dtype::fp32).dense_tflops, "TF");
    if (m.mma_sync_bf16_tflops > 0 && profile->supports(Dtype::bf16)) {
        row("bf16 mma.sync m16n8k16, registers", m.mma_sync_bf16_tflops, profile->peak.at(Dtype::bf16).dense_tflops, "TF");
    }
    if (m.wgmma_fp8_tflops > 0) {
        // The datasheet column is empty (0) for a part whose profile has no FP8 roof.
        double sheet = profile->supports(Dtype::fp8) ? profile->peak.at(Dtype::fp8).dense_tflops : 0;
        row("fp8 wgmma m64n256k32, shared mem", m.wgmma_fp8_tflops, sheet, "TF");
    } else if (!m.wgmma_fp8_skipped.empty()) {
        fmt::print("  fp8 wgmma: not measured ({})\n", m.wgmma_fp8_skipped);
    }
    for (const auto& [dtype, tflops] : m.gemm_tflops) {
        double sheet = profile->supports(dtype) ? profile->peak.at(dtype).dense_tflops : 0;
        row(fmt::format("cuBLAS {} GEMM, N=8192", dtype_name(dtype)), tflops, sheet, "TF");
    }
    fmt::print("  kernel launch, back to back        {:>7.3g} us\n", m.launch_us);
    fmt::print("  kernel launch, in a CUDA graph     {:>7.3g} us\n", m.graph_launch_us);
    fmt::print("  SM clock during the bf16 GEMMs     {:>7.0f} MHz\n", m.sm_clock_mhz);
    fmt::print("saved to {}; `roofline grade` now scores against these on this GPU.\n", file.string());
}

}  // namespace

void add_ceilings_command(CLI::App& app, Context& context) {
    static std::string hardware;
    static bool json = false;
    auto* ceilings = app.add_subcommand("ceilings", "measure this GPU's bandwidth, GEMM rates and launch cost; save them");
    ceilings->add_option("--hardware", hardware, "save under this profile id instead of the detected one");
    ceilings->add_flag("--json", json, "print everything measured as JSON");
    ceilings->callback([&context] { run_ceilings(context, hardware, json); });
}

}  // namespace roofline::cli
