// roofline timeline LAB/VARIANT: every kernel of one launch of a variant, with its
// start, duration and the GPU's idle gap before it, and a Gantt chart (lib/profile/timeline.hpp).
// The run itself (build, verify, one launch recorded with CUPTI) is lib/profile/timeline_run.hpp's;
// here, the flags, the files checked before it and what it prints.
#include "command.hpp"
#include "number_flags.hpp"
#include "input_error.hpp"
#include "output_file.hpp"
#include "timeline_run.hpp"

#include <fmt/format.h>


namespace roofline::cli {

namespace {

struct TimelineFlags {
    std::string target;
    bool solutions = false;
    bool no_build = false;
    std::string shape;  // overrides the variant's timed shape: "n=1024"
    std::string svg;
    std::string trace;  // also write the lab program's records here (JSON)
    std::uint64_t seed = 1;
};

// "k=8192,n=8192" -> Shape, refusing what the lab program would not take.
Shape parse_shape_flag(const std::string& text, const std::vector<std::string>& wanted) {
    Shape shape;
    std::size_t begin = 0;
    while (begin <= text.size()) {
        auto end = text.find(',', begin);
        auto item = text.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
        auto eq = item.find('=');
        long long value = 0;
        try {
            if (eq != std::string::npos) value = std::stoll(item.substr(eq + 1));
        } catch (const std::exception&) {
            value = 0;
        }
        if (eq == std::string::npos || value <= 0)
            throw InputError(fmt::format("--shape '{}' must look like {}=1024,... with positive whole sizes", text,
                                         fmt::join(wanted, "=...,")));
        shape[item.substr(0, eq)] = value;
        if (end == std::string::npos) break;
        begin = end + 1;
    }
    std::vector<std::string> keys;
    for (const auto& [key, value] : shape) keys.push_back(key);
    if (keys != wanted)
        throw InputError(fmt::format("--shape '{}' must give exactly {} for this variant", text, fmt::join(wanted, ", ")));
    return shape;
}


void timeline_command(Context& context, const TimelineFlags& f) {
    auto ws = context.build_workspace();
    auto target = load_target(ws, f.target);
    const auto& lab = target.lab;
    const auto& variant = target.variant();
    Shape shape = variant.timed;
    if (!f.shape.empty()) {
        std::vector<std::string> wanted;
        for (const auto& [key, value] : variant.timed) wanted.push_back(key);
        shape = parse_shape_flag(f.shape, wanted);
        if (auto refusal = lab.shape_refusal(variant, shape)) throw InputError("--shape: " + *refusal);
    }
    // The files it will write, checked before the build and the run, not after them.
    auto svg_path = f.svg.empty() ? ws.results_dir(lab.id, f.solutions) / "timeline" / (variant.name + ".svg")
                                  : std::filesystem::path(f.svg);
    auto svg_folder = f.svg.empty() ? OutputFolder::create : OutputFolder::must_exist;
    check_output_file(svg_path, "--svg", svg_folder);
    if (!f.trace.empty()) check_output_file(f.trace, "--trace");
    TimelineRequest request{&lab, &variant, shape, f.solutions, !f.no_build, f.seed};
    auto run = run_timeline(ws, request);
    if (run.exit_code != 0) {
        fmt::print(stderr, "{}\n", run.refusal);
        context.exit_code = run.exit_code;
        return;
    }
    if (!f.trace.empty()) write_output_file(f.trace, nlohmann::json(*run.records).dump(1) + "\n", "--trace");
    const auto& timeline = run.timeline;
    const std::string& device = run.device;
    fmt::print("timeline of {}/{} ({}) at {} on {}\n\n{}", lab.id, variant.name, f.solutions ? "solutions" : "labs",
               shape_text(shape), device, timeline_text(timeline));
    fmt::print("UPPER BOUNDS: recorded under CUPTI, which adds host time to every launch (about 1 us; far more for a "
               "CUDA graph's nodes), so every gap above is at most what an unwatched run has. Read the timeline for "
               "its shape; take the step's time from `roofline grade`, which times without CUPTI.\n");
    write_output_file(svg_path,
                      timeline_svg(timeline, fmt::format("{}/{} at {} on {}", lab.id, variant.name, shape_text(shape), device)),
                      "--svg", svg_folder);
    fmt::print("chart: {}\n", svg_path.string());
}

}  // namespace

void add_timeline_command(CLI::App& app, Context& context) {
    static TimelineFlags f;
    auto* cmd = app.add_subcommand("timeline",
                                   "every kernel of one launch of a variant: start, duration, the idle gap before "
                                   "each, and a Gantt chart");
    cmd->add_option("target", f.target, "LAB/VARIANT, e.g. 00-three-regimes/overhead_launches")->required();
    cmd->add_flag("--solutions", f.solutions, "use the reference solutions/ instead of labs/");
    cmd->add_flag("--no-build", f.no_build, "do not rebuild the lab program first");
    cmd->add_option("--shape", f.shape, "another shape than the variant's timed one, e.g. n=4096");
    cmd->add_option("--svg", f.svg, "where to write the chart (default .roofline/results/LAB/labs/timeline/VARIANT.svg)")->check(file_path());
    cmd->add_option("--trace", f.trace, "also write the CUPTI records as JSON (what lib/profile/timeline.hpp parses)")->check(file_path());
    cmd->add_option("--seed", f.seed, "the random seed of the inputs (default 1)");
    cmd->footer("The variant is verified first; an incorrect one gets no timeline (exit 1). The gaps are GPU time\n"
                "with no kernel running: in a loop of launches, the host's launch overhead.");
    cmd->callback([&context] { timeline_command(context, f); });
}

}  // namespace roofline::cli
