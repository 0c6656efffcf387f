// roofline list: the labs, their variants, and where each one stands.
#include "command.hpp"
#include "number_flags.hpp"
#include "lab_spec.hpp"
#include "prediction_log.hpp"
#include "source_hash.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>

namespace roofline::cli {

namespace {

std::string last_result(const Workspace& ws, const LabSpec& lab, const VariantSpec& v) {
    auto file = ws.saved_grade(lab.id, false, v.name);
    if (!std::filesystem::exists(file)) return "not graded";
    std::ifstream in(file);
    auto j = nlohmann::json::parse(in, nullptr, false);
    if (j.is_discarded()) return "not graded";
    if (!j.value("correct", false)) return "last grade: incorrect";
    if (v.cpu_graded) return fmt::format("last grade: correct, {:g}/{:g} points", j["points"].value("total", 0.0),
                                         j["points"].value("max", 0.0));
    return fmt::format("last grade: {:.0f}% of {}, {:.1f}/{:g} points", 100 * j["fraction_scored"].get<double>(),
                       j["scored_against"].get<std::string>().rfind("roofline", 0) == 0 ? "roofline" : "peer",
                       j["points"]["total"].get<double>(), j["points"]["max"].get<double>());
}

void run_list(Context& context, const std::string& log_flag) {
    auto ws = context.workspace();
    auto log = load_log(log_flag.empty() ? ws.default_log() : std::filesystem::path(log_flag));
    auto labs = load_labs(ws.labs_dir());
    // Columns as wide as the longest name and file, so long ones do not push a row out of line.
    std::size_t name_width = 24, file_width = 32;
    for (const auto& lab : labs) {
        for (const auto& v : lab.variants) {
            name_width = std::max(name_width, v.name.size());
            file_width = std::max(file_width, v.file.string().size());
        }
    }
    for (const auto& lab : labs) {
        fmt::print("{}  {}  (lesson: {})\n", lab.id, lab.title, lab.lesson);
        for (const auto& v : lab.variants) {
            auto hash = hash_file(ws.kernels_root(lab.id, false) / v.file);
            bool predicted = log.find_current(lab.id, v.name, shape_text(v.timed), hash) != nullptr;
            // An open rung (lab.yaml `open: true`) is marked: its design is the student's.
            fmt::print("  {:<{}} {:<4} {:<5} {:<{}} {:<14} {}\n", v.name, name_width, v.open ? "open" : "",
                       v.cpu_graded ? "cpu" : dtype_name(v.dtype), v.file.string(), file_width,
                       v.cpu_graded ? "no prediction needed" : predicted ? "predicted" : "no prediction",
                       last_result(ws, lab, v));
        }
        fmt::print("\n");
    }
    fmt::print("grade one: roofline predict LAB/VARIANT ...; roofline grade LAB/VARIANT\n");
}

}  // namespace

void add_list_command(CLI::App& app, Context& context) {
    static std::string log_flag;
    auto* list = app.add_subcommand("list", "the labs and their variants, with prediction and grade state");
    list->add_option("--log", log_flag, "the prediction log (default: predictions.yaml at the course root)")->check(file_path());
    list->callback([&context] { run_list(context, log_flag); });
}

}  // namespace roofline::cli
