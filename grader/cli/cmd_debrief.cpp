// roofline debrief LAB/VARIANT: the measured story of a variant, once the log
// holds a graded measurement of it (debrief.hpp says why it waits).
#include "command.hpp"
#include "number_flags.hpp"
#include "debrief.hpp"
#include "input_error.hpp"
#include "lab_spec.hpp"
#include "units.hpp"

#include <fmt/format.h>

namespace roofline::cli {

namespace {

struct DebriefFlags {
    std::string target;
    std::string log;
    bool solutions = false;
};

void run_debrief(Context& context, const DebriefFlags& f) {
    auto ws = context.workspace();
    auto target = load_target(ws, f.target);
    const auto& lab = target.lab;
    const auto& variant = target.variant();
    auto log_path = f.log.empty() ? ws.default_log() : std::filesystem::path(f.log);
    auto log = load_log(log_path);
    auto gate = open_debrief(ws, log, lab.id, variant.name, f.solutions, f.log.empty() ? "" : " --log " + f.log);
    if (!gate.text) {
        fmt::print(stderr, "{}\n", gate.refusal);
        context.exit_code = kNotGradedYet;
        return;
    }
    if (const auto* m = gate.measurement) {
        const auto* p = log.find_by_id(m->prediction_id);
        fmt::print("debrief of {}/{}: your measurement {} ({}, {}) ", lab.id, variant.name, m->id,
                   m->graded_on_cpu ? std::string("correct on the CPU") : seconds(m->measured_time_s), m->measured_at);
        if (p) fmt::print("against your prediction {} ({}, {:.2f}x)", p->id, seconds(p->predicted_time_s),
                          m->measured_time_s / p->predicted_time_s);
        fmt::print("\nexplain the gap in your own words: roofline explain {}/{} --why \"...\"\n\n", lab.id, variant.name);
    }
    fmt::print("{}", *gate.text);
    if (!gate.text->empty() && gate.text->back() != '\n') fmt::print("\n");
}

}  // namespace

void add_debrief_command(CLI::App& app, Context& context) {
    static DebriefFlags f;
    auto* cmd = app.add_subcommand("debrief", "the measured story of a variant, after your own graded measurement of it");
    cmd->add_option("target", f.target, "LAB/VARIANT")->required();
    cmd->add_option("--log", f.log, "the prediction log (default: predictions.yaml at the course root)")->check(file_path());
    cmd->add_flag("--solutions", f.solutions, "show it without a measurement (instructors)");
    cmd->footer("Reads labs/LAB/debrief/VARIANT.md. Exit 9 while the log holds no correct measurement of the variant:\n"
                "predict and grade it first.");
    cmd->callback([&context] { run_debrief(context, f); });
}

}  // namespace roofline::cli
