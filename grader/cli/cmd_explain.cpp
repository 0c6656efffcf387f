// roofline explain LAB/VARIANT --why "...": after a graded measurement, write down
// what made the measurement differ from the prediction. Appended to the log as a
// gap note bound to that measurement; `roofline log` shows it.
#include "command.hpp"
#include "number_flags.hpp"
#include "input_error.hpp"
#include "lab_spec.hpp"
#include "prediction_log.hpp"
#include "units.hpp"

#include <fmt/format.h>

namespace roofline::cli {

namespace {

struct ExplainFlags {
    std::string target;
    std::string why;
    std::string log;
};

void run_explain(Context& context, const ExplainFlags& f) {
    auto ws = context.workspace();
    auto target = load_target(ws, f.target);
    const auto& lab = target.lab;
    const auto& variant = target.variant();
    if (f.why.find_first_of("\r\n") != std::string::npos) {
        throw InputError("--why: it holds a line break; write the explanation on one line (it is kept in the log)");
    }
    if (f.why.find_first_not_of(" \t") == std::string::npos) {
        throw InputError("--why: write what made the measurement differ from your prediction (it is kept in the log)");
    }
    auto log_path = f.log.empty() ? ws.default_log() : std::filesystem::path(f.log);
    auto log_flag = f.log.empty() ? std::string() : " --log " + f.log;
    auto log = load_log(log_path);
    const auto* m = log.latest_graded(lab.id, variant.name);
    if (!m) {
        fmt::print(stderr, "{} holds no correct measurement of {}/{}: a gap note explains a measurement, so grade it "
                           "first:\n  roofline grade {}/{}{}\n",
                   log_path.string(), lab.id, variant.name, lab.id, variant.name, log_flag);
        context.exit_code = kNotGradedYet;
        return;
    }
    GapNote note;
    note.measurement_id = m->id;
    note.lab = lab.id;
    note.variant = variant.name;
    note.why = f.why;
    note.written_at = utc_now_iso8601();
    append_gap_note(log_path, note);
    fmt::print("recorded a gap note in {} for {} ({}/{}, {})\n", log_path.string(), m->id, lab.id, variant.name,
               m->graded_on_cpu ? std::string("graded on the CPU") : "measured " + seconds(m->measured_time_s));
    if (lab.scoring.gap_note > 0) {
        fmt::print("lab.yaml gives the gap note up to {:g} points per variant, graded by hand\n", lab.scoring.gap_note);
    }
}

}  // namespace

void add_explain_command(CLI::App& app, Context& context) {
    static ExplainFlags f;
    auto* cmd = app.add_subcommand("explain", "after grading: record why the measurement differs from your prediction");
    cmd->add_option("target", f.target, "LAB/VARIANT")->required();
    cmd->add_option("--why", f.why, "one or two sentences: what your prediction missed (or why it held)")->required();
    cmd->add_option("--log", f.log, "the prediction log (default: predictions.yaml at the course root)")->check(file_path());
    cmd->footer("Binds the note to the variant's newest correct measurement. Exit 9 when there is none yet.\n"
                "Example: roofline explain 01-memory-roof/copy_naive_fp32 \\\n"
                "           --why \"one 4-byte load in flight per thread: too few bytes in flight to hide DRAM latency\"");
    cmd->callback([&context] { run_explain(context, f); });
}

}  // namespace roofline::cli
