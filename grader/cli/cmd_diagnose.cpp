// roofline diagnose LAB/VARIANT --cause ID --why "...": name what makes a kernel slow,
// before or after profiling it; `roofline profile` compares it with the counters.
// roofline diagnose LAB/INCIDENT --cause REGIME [--tokens-per-s N] --why "...": the same at step
// level for module 10's incidents (labs/LAB/server/incidents/INCIDENT.yaml), scored against the
// record `roofline serve` saved of that configuration (incident_score.hpp), with the step's
// timeline and roofline drawn beside the record.
#include "command.hpp"
#include "number_flags.hpp"
#include "diagnosis.hpp"
#include "file_text.hpp"
#include "incident_score.hpp"
#include "input_error.hpp"
#include "output_file.hpp"
#include "prediction_log.hpp"
#include "source_hash.hpp"
#include "svg_step.hpp"

#include <fmt/format.h>

#include <cmath>

namespace roofline::cli {

namespace {

struct DiagnoseFlags {
    std::string target, cause, why, log;
    bool solutions = false;
    double tokens_per_s = 0;  // an incident's predicted tokens/s (0: none given)
    std::string record;       // an incident: the serve record (default .roofline/serve/INCIDENT.json)
    bool score_only = false;  // an incident: score the newest diagnosis, record nothing
    std::string json;
};

void check_why(const std::string& why, const std::string& what) {
    if (why.find_first_of("\r\n") != std::string::npos || why.find_first_not_of(" \t") == std::string::npos)
        throw InputError("--why: one sentence on one line: " + what);
}

// The two pictures beside the record: INCIDENT-timeline.svg and INCIDENT-roofline.svg.
std::vector<std::filesystem::path> write_step_pictures(const IncidentReport& report, const std::filesystem::path& record) {
    auto folder = record.parent_path().empty() ? std::filesystem::path(".") : record.parent_path();
    auto stem = record.stem().string();
    std::vector<std::filesystem::path> files{folder / (stem + "-timeline.svg"), folder / (stem + "-roofline.svg")};
    write_output_file(files[0], step_timeline_svg(report), "the timeline picture", OutputFolder::create);
    write_output_file(files[1], step_roofline_svg(report), "the step's roofline picture", OutputFolder::create);
    return files;
}

void run_incident_diagnose(Context& context, const DiagnoseFlags& f, const Workspace& ws, const std::string& lab,
                           const std::string& incident) {
    auto log = f.log.empty() ? ws.default_log() : std::filesystem::path(f.log);
    auto record = f.record.empty() ? ws.serve_record(incident) : std::filesystem::path(f.record);
    auto config = ws.incident_config(lab, incident);
    auto serve_command = fmt::format("roofline serve {}", std::filesystem::relative(config, ws.root).string());
    const std::string config_hash = hash_file(config);
    // The record is read first (untrusted: incident_report.hpp checks it), so that a forged one is
    // refused before anything is written.
    std::optional<IncidentReport> report;
    std::string digest;
    if (std::filesystem::exists(record)) {
        // One read: the digest the diagnosis keeps is of the very bytes that are scored.
        if (!std::filesystem::is_regular_file(record))
            throw InputError(fmt::format("{}: not a regular file; run {}", record.string(), serve_command));
        const std::string text = read_file_text(record);
        report = read_incident_report(text, record);
        digest = fnv1a64_hex(text);
        if (report->incident != incident)
            throw InputError(fmt::format("{}: the record is of {}, not {}; run {}", record.string(), report->incident,
                                         incident, serve_command));
    } else if (!f.record.empty()) {
        throw InputError(fmt::format("--record: {} does not exist", f.record));
    }

    const Diagnosis* scored = nullptr;
    Diagnosis written;
    PredictionLog loaded;
    if (f.score_only) {
        loaded = load_log(log);
        scored = newest_incident_diagnosis(loaded, lab, incident);
        if (!scored)
            throw InputError(fmt::format("no diagnosis of {}/{} in {}: roofline diagnose {}/{} --cause "
                                         "compute|memory|overhead --tokens-per-s N --why \"...\"",
                                         lab, incident, log.string(), lab, incident));
    } else {
        if (!parse_regime(f.cause))
            throw InputError(fmt::format("--cause: '{}' is not a regime; an incident's cause is compute, memory or "
                                         "overhead (lessons/10-production.md)",
                                         f.cause));
        check_why(f.why, "the evidence (the figures of `roofline serve`, `timeline` or `profile`) that names the regime");
        if (f.tokens_per_s < 0 || !std::isfinite(f.tokens_per_s))
            throw InputError("--tokens-per-s: a positive number of tokens per second (the whole batch's)");
        written.lab = lab;
        written.variant = incident;
        written.cause = f.cause;
        written.why = f.why;
        written.source_hash = config_hash;
        written.written_at = utc_now_iso8601();
        if (f.tokens_per_s > 0) written.predicted_tokens_per_s = f.tokens_per_s;
        written.report_digest = digest;
        written = append_diagnosis(log, written);
        scored = &written;
        fmt::print("recorded in {}: {}/{} is {}-bound{}\n", log.string(), lab, incident, f.cause,
                   written.predicted_tokens_per_s ? fmt::format(", {:.1f} tokens/s predicted", *written.predicted_tokens_per_s)
                                                  : "");
    }
    if (!report) {
        fmt::print("no record of a run yet: {} (it saves {}), then roofline diagnose {}/{} --score\n", serve_command,
                   record.string(), lab, incident);
        return;
    }
    if (scored->source_hash != config_hash)
        fmt::print("note: {} changed since this diagnosis was written; it is scored against the record as it is\n",
                   config.string());
    auto keys = load_incident_key(ws.incident_key(lab));
    std::optional<IncidentKey> key;
    if (auto it = keys.find(incident); it != keys.end()) key = it->second;
    auto score = score_incident(*scored, *report, digest, key);
    fmt::print("\n{}\n{}", incident_text(*report), incident_score_text(score));
    auto pictures = write_step_pictures(*report, record);
    fmt::print("pictures: {}, {}\n", pictures[0].string(), pictures[1].string());
    if (!f.json.empty()) write_json_file(f.json, incident_score_json(score));
}

// LAB/NAME names an incident when the lab keeps a configuration of that name and no variant has it.
std::optional<std::pair<std::string, std::string>> incident_target(const Workspace& ws, const std::string& target) {
    auto [lab, name] = split_target(target);
    if (!std::filesystem::is_regular_file(ws.incident_config(lab, name))) return std::nullopt;
    return std::make_pair(lab, name);
}

void run_diagnose(Context& context, const DiagnoseFlags& f) {
    auto ws = context.workspace();
    if (!f.score_only && f.cause.empty())
        throw InputError("--cause is required: one of lesson 02's causes, or for an incident compute, memory or overhead "
                         "(roofline diagnose --help)");
    if (!f.score_only && f.why.empty()) throw InputError("--why is required: one sentence on what points at the cause");
    if (auto incident = incident_target(ws, f.target)) {
        run_incident_diagnose(context, f, ws, incident->first, incident->second);
        return;
    }
    if (f.score_only || f.tokens_per_s != 0 || !f.record.empty() || !f.json.empty())
        throw InputError(fmt::format("--score, --tokens-per-s, --record and --json are for module 10's incidents "
                                     "(LAB/INCIDENT, e.g. 10-production/incident-b); {} is a kernel",
                                     f.target));
    auto target = load_target(ws, f.target);
    if (!find_cause(f.cause)) {
        std::vector<std::string> ids;
        for (const auto& c : diagnosis_causes()) ids.push_back(c.id);
        throw InputError(fmt::format("--cause: '{}' is not one of lesson 02's causes: {}", f.cause, fmt::join(ids, ", ")));
    }
    check_why(f.why, "what in the counters (or the code) points at the cause");
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
    auto* cmd = app.add_subcommand("diagnose", "name what makes a variant slow (`roofline profile` checks it), or which "
                                               "regime binds one of module 10's incidents (scored against its serve run)");
    cmd->add_option("target", f.target, "LAB/VARIANT, or LAB/INCIDENT (10-production/incident-b)")->required();
    std::string ids;
    for (const auto& c : diagnosis_causes()) ids += fmt::format("\n  {:<16} {} (counters: {})", c.id, c.meaning, c.evidence);
    cmd->add_option("--cause", f.cause, "one of the causes below; for an incident, compute, memory or overhead");
    cmd->add_option("--why", f.why, "one sentence: what points at it");
    cmd->add_option("--log", f.log, "the prediction log (default: predictions.yaml at the course root)")->check(file_path());
    cmd->add_flag("--solutions", f.solutions, "for the reference solution's source");
    cmd->add_option("--tokens-per-s", f.tokens_per_s, "an incident: the tokens/s you predict for the configuration");
    cmd->add_option("--record", f.record, "an incident: the serve record (default: .roofline/serve/INCIDENT.json)")
        ->check(file_path());
    cmd->add_flag("--score", f.score_only, "an incident: score the newest diagnosis against the record, write nothing");
    cmd->add_option("--json", f.json, "an incident: also write the score as JSON here")->check(file_path());
    cmd->footer("Causes (lesson 02):" + ids +
                "\nAn incident (lessons/10-production.md): --cause compute|memory|overhead, scored against the record "
                "`roofline serve` saved\nof its configuration (the step's own numbers); predict --tokens-per-s before "
                "you run it: a prediction\nwritten after the record it is scored against earns nothing.");
    cmd->callback([&context] { run_diagnose(context, f); });
}

}  // namespace roofline::cli
