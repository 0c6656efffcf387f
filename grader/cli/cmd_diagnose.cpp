// roofline diagnose LAB/VARIANT --cause ID --why "...": name what makes a kernel slow,
// before or after profiling it; `roofline profile` compares it with the counters.
#include "command.hpp"
#include "number_flags.hpp"
#include "diagnosis.hpp"
#include "input_error.hpp"
#include "prediction_log.hpp"
#include "source_hash.hpp"

#include <fmt/format.h>

namespace roofline::cli {

namespace {

struct DiagnoseFlags {
    std::string target, cause, why, log;
    bool solutions = false;
};

void run_diagnose(Context& context, const DiagnoseFlags& f) {
    auto ws = context.workspace();
    auto target = load_target(ws, f.target);
    if (!find_cause(f.cause)) {
        std::vector<std::string> ids;
        for (const auto& c : diagnosis_causes()) ids.push_back(c.id);
        throw InputError(fmt::format("--cause: '{}' is not one of lesson 02's causes: {}", f.cause, fmt::join(ids, ", ")));
    }
    if (f.why.find_first_of("\r\n") != std::string::npos || f.why.find_first_not_of(" \t") == std::string::npos) {
        throw InputError("--why: one sentence on one line: what in the counters (or the code) points at the cause");
    }
    Diagnosis d;
    d.lab = target.lab.id;
    d.variant = target.variant_name;
    d.cause = f.cause;
    d.why = f.why;
    d.source_hash = hash_file(ws.kernel_file(d.lab, f.solutions, target.variant().file));
    d.written_at = utc_now_iso8601();
    auto log = f.log.empty() ? ws.default_log() : std::filesystem::path(f.log);
    append_diagnosis(log, d);
    fmt::print("recorded in {}: {} is slow because of {} ({})\nnow: roofline profile {}{}\n", log.string(),
               target.name(), d.cause, find_cause(d.cause)->meaning, target.name(), f.log.empty() ? "" : " --log " + f.log);
}

}  // namespace

void add_diagnose_command(CLI::App& app, Context& context) {
    static DiagnoseFlags f;
    auto* cmd = app.add_subcommand("diagnose", "name what makes a variant slow; `roofline profile` checks it");
    cmd->add_option("target", f.target, "LAB/VARIANT")->required();
    std::string ids;
    for (const auto& c : diagnosis_causes()) ids += fmt::format("\n  {:<16} {} (counters: {})", c.id, c.meaning, c.evidence);
    cmd->add_option("--cause", f.cause, "one of the causes below")->required();
    cmd->add_option("--why", f.why, "one sentence: what points at it")->required();
    cmd->add_option("--log", f.log, "the prediction log (default: predictions.yaml at the course root)")->check(file_path());
    cmd->add_flag("--solutions", f.solutions, "for the reference solution's source");
    cmd->footer("Causes (lesson 02):" + ids);
    cmd->callback([&context] { run_diagnose(context, f); });
}

}  // namespace roofline::cli
