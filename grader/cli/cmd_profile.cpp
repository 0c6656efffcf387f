// roofline profile LAB/VARIANT: the variant's timed shape once under Nsight Compute,
// read as a person would want it (lib/profile/profile.hpp).
#include "command.hpp"
#include "output_file.hpp"
#include "number_flags.hpp"
#include "profile.hpp"

#include <fmt/format.h>

#include <fstream>
#include <limits>

namespace roofline::cli {

namespace {

struct ProfileFlags {
    std::string target;
    bool solutions = false;
    bool no_build = false;
    bool json = false;
    std::string svg;
    std::string log;
    std::string hardware;
    std::string csv;
    std::optional<std::uint64_t> seed;
};

void run_profile(Context& context, const ProfileFlags& f) {
    auto ws = f.csv.empty() ? context.build_workspace() : context.workspace();
    if (!f.svg.empty()) check_output_file(f.svg, "--svg");  // before ncu's minutes, not after
    auto target = load_target(ws, f.target);
    ProfileRequest request;
    request.lab = target.lab.id;
    request.variant = target.variant_name;
    request.solutions = f.solutions;
    request.build = !f.no_build;
    request.log = f.log.empty() ? ws.default_log() : std::filesystem::path(f.log);
    request.hardware = f.hardware;
    request.csv_file = f.csv;
    request.seed = f.seed;
    auto outcome = profile_variant(ws, request);
    context.exit_code = outcome.exit_code;
    if (outcome.report) {
        auto svg = profile_svg(*outcome.report);
        auto path = f.svg.empty() ? std::filesystem::path() : std::filesystem::path(f.svg);
        if (!path.empty()) {
            write_output_file(path, svg, "--svg");
            outcome.text += fmt::format("  roofline  {} (the hierarchical roofline)\n", path.string());
            outcome.json["svg"] = path.string();
        }
    }
    if (f.json) fmt::print("{}\n", outcome.json.dump(2));
    else fmt::print("{}", outcome.text);
}

}  // namespace

void add_profile_command(CLI::App& app, Context& context) {
    static ProfileFlags f;
    auto* cmd = app.add_subcommand(
        "profile", "run a variant once under Nsight Compute (ncu): bytes at each level, FLOPs, occupancy, what binds");
    cmd->add_option("target", f.target, "LAB/VARIANT, e.g. 01-memory-roof/copy_vectorized_fp32")->required();
    cmd->add_flag("--solutions", f.solutions, "profile the reference solution instead of your kernel");
    cmd->add_flag("--no-build", f.no_build, "do not rebuild the lab program first");
    cmd->add_flag("--json", f.json, "print the report as JSON");
    cmd->add_option("--svg", f.svg, "also write the hierarchical roofline (SVG) here")->check(file_path());
    cmd->add_option("--log", f.log, "the prediction log (default: predictions.yaml at the course root)")->check(file_path());
    cmd->add_option("--hardware", f.hardware, "the roofs of this profile instead of the detected GPU's");
    cmd->add_option("--csv", f.csv, "read this table (ncu --csv --page raw) instead of running ncu; records nothing")->check(file_path());
    cmd->add_option("--seed", f.seed, "the random seed of the inputs (default: fresh)")
        ->check(whole_in(0, std::numeric_limits<std::uint64_t>::max()));
    cmd->footer("Needs ncu (Nsight Compute) and permission to read the GPU's counters; takes about 10-30 s.\n"
                "Predict the DRAM bytes first (roofline predict ... --bytes B) to have them checked.\n"
                "Exit codes: 0 profiled, 1 the variant is incorrect, 2 bad input, 4 no CUDA device, 5 build failed,\n"
                "6 crashed or timed out, 10 ncu is missing or may not read the counters (ERR_NVGPUCTRPERM).");
    cmd->callback([&context] { run_profile(context, f); });
}

}  // namespace roofline::cli
