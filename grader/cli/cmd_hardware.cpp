// roofline hardware list | show NAME: the GPU spec sheets in hardware/.
#include "command.hpp"
#include "hardware.hpp"

#include <fmt/format.h>

namespace roofline::cli {

namespace {

void list_profiles(const Context& context) {
    auto profiles = load_profiles(context.hardware_dir());
    fmt::print("{:<16} {:<34} {:<7} {:>4} {:>9} {:>10} {:>10}\n", "id", "name", "arch", "SMs", "memory",
               "TB/s", "bf16 TF/s");
    for (const auto& p : profiles) {
        fmt::print("{:<16} {:<34} {:<7} {:>4} {:>6.0f} GB {:>10.3g} {:>10.4g}\n", p.id, p.name, p.architecture,
                   p.sm_count, p.memory.capacity_gb, p.memory.bandwidth_tbs, p.peak.at(Dtype::bf16).dense_tflops);
    }
    fmt::print("\nDense figures (no sparsity). `roofline hardware show ID` gives every dtype and its source.\n");
}

void show_profile(const Context& context, const std::string& name) {
    auto profiles = load_profiles(context.hardware_dir());
    const auto& p = find_profile(profiles, name);
    fmt::print("{} ({})\n", p.name, p.file.string());
    fmt::print("  architecture   {}, {} SMs, {:g} MB L2\n", p.architecture, p.sm_count, p.l2_mb);
    fmt::print("  memory         {:g} GB {} at {:g} TB/s\n                 source: {}\n", p.memory.capacity_gb,
               p.memory.kind, p.memory.bandwidth_tbs, p.memory.source);
    fmt::print("  peak TFLOP/s (dense)                ridge (FLOP/byte)\n");
    for (auto dtype : all_dtypes) {
        auto it = p.peak.find(dtype);
        if (it == p.peak.end()) {
            fmt::print("    {:<5} none on this part\n", dtype_name(dtype));
            continue;
        }
        const auto& figure = it->second;
        std::string sparse = figure.sparse_tflops ? fmt::format(" (sparse {:g}: never used)", *figure.sparse_tflops) : "";
        fmt::print("    {:<5} {:>8g}{:<28} {:>8.1f}\n", dtype_name(dtype), figure.dense_tflops, sparse,
                   figure.dense_tflops / p.memory.bandwidth_tbs);
        fmt::print("          source: {}\n", figure.source);
    }
    fmt::print("  match          device names containing: {}\n", fmt::join(p.match, " | "));
}

}  // namespace

void add_hardware_command(CLI::App& app, Context& context) {
    auto* hardware = app.add_subcommand("hardware", "list the GPU spec sheets, or show one");
    // `hardware` alone lists; `hardware h200-sxm` is `hardware show h200-sxm`.
    hardware->require_subcommand(0, 1);
    auto* list = hardware->add_subcommand("list", "one line per GPU profile in hardware/");
    list->callback([&context] { list_profiles(context); });
    auto* show = hardware->add_subcommand("show", "every figure of one profile, with its source");
    static std::string name, shorthand;
    show->add_option("name", name, "profile id or name, e.g. h200-sxm")->required();
    show->callback([&context] { show_profile(context, name); });
    hardware->add_option("profile", shorthand, "a profile id: the same as `hardware show ID`");
    hardware->callback([&context, hardware] {
        if (!hardware->get_subcommands().empty()) return;  // list or show ran
        if (shorthand.empty()) list_profiles(context);
        else show_profile(context, shorthand);
    });
}

}  // namespace roofline::cli
