// roofline log: predicted against measured, entry by entry, with the gap notes
// written after each measurement, and whether the predictions are getting better
// (calibration over time).
#include "byte_calibration.hpp"
#include "output_file.hpp"
#include "calibration.hpp"
#include "time_on_lab.hpp"
#include "command.hpp"
#include "number_flags.hpp"
#include "prediction_log.hpp"
#include "svg.hpp"
#include "units.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>

namespace roofline::cli {

namespace {

struct LogFlags {
    std::string log;
    bool json = false;
    std::string svg;
};

// No measurements: null figures, since a 0 median error would read as perfect.
nlohmann::json calibration_json(const Calibration& c) {
    if (c.count == 0) return {{"count", 0}, {"median_abs_log2_ratio", nullptr}, {"share_within_1_5x", nullptr}};
    return {{"count", c.count}, {"median_abs_log2_ratio", c.median_abs_log2}, {"share_within_1_5x", c.share_within_1_5x}};
}

void run_log(Context& context, const LogFlags& f) {
    auto path = f.log.empty() ? context.workspace().default_log() : std::filesystem::path(f.log);
    if (!f.svg.empty()) check_output_file(f.svg, "--svg");
    auto log = load_log(path);  // a missing folder, a folder or a binary file: an error naming it
    if (!std::filesystem::exists(path)) {
        fmt::print(stderr, "note: {} does not exist yet; `roofline predict` starts it (check the path if it should)\n",
                   path.string());
    }
    nlohmann::json rows = nlohmann::json::array();
    // CPU-graded parts (lab 05): correctness and points, no time to calibrate against.
    nlohmann::json cpu_rows = nlohmann::json::array();
    for (const auto& m : log.measurements) {
        if (!m.graded_on_cpu) continue;
        nlohmann::json notes = nlohmann::json::array();
        for (const auto* n : log.notes_for(m.id)) notes.push_back({{"why", n->why}, {"written_at", n->written_at}});
        cpu_rows.push_back({{"measurement", m.id}, {"when", m.measured_at}, {"lab", m.lab}, {"variant", m.variant},
                            {"correct", m.correct}, {"points", m.points}, {"max_points", m.max_points},
                            {"gap_notes", notes}});
    }
    auto graded = graded_predictions(log);
    auto counting = counted_predictions(log);  // the report counts the same (calibration.hpp)
    const auto& counted_graded = counting.counted;
    const int edited_count = counting.edited_left_out;
    for (const auto& m : log.measurements) {
        const auto* p = log.find_by_id(m.prediction_id);
        if (!p || m.graded_on_cpu) continue;
        double ratio = m.measured_time_s / p->predicted_time_s;
        bool edited = m.prediction_digest != p->digest();
        // only a prediction's first measurement counts for calibration, and only if the
        // prediction was not edited after it was measured (calibration.hpp)
        bool first = std::any_of(graded.begin(), graded.end(), [&](const auto& g) { return g.first == &m; });
        bool counted = std::any_of(counted_graded.begin(), counted_graded.end(), [&](const auto& g) { return g.first == &m; });
        nlohmann::json notes = nlohmann::json::array();
        for (const auto* n : log.notes_for(m.id)) notes.push_back({{"why", n->why}, {"written_at", n->written_at}});
        rows.push_back({{"measurement", m.id}, {"when", m.measured_at}, {"lab", m.lab}, {"variant", m.variant}, {"prediction", p->id},
                        {"predicted_s", p->predicted_time_s}, {"measured_s", m.measured_time_s}, {"ratio", ratio},
                        {"predicted_regime", regime_name(p->regime)}, {"measured_regime", regime_name(m.measured_regime)},
                        {"correct", m.correct}, {"edited_after_measurement", edited}, {"counted", counted},
                        {"regrading", !first},
                        {"gpu", m.gpu}, {"gap_notes", notes}});
    }
    std::vector<ScatterPoint> points;
    for (const auto& g : graded) {
        ScatterPoint point{fmt::format("{} {}/{}", g.prediction->id, g.prediction->lab, g.prediction->variant),
                           g.prediction->predicted_time_s, g.first->measured_time_s, {}};
        for (const auto* again : g.regradings) point.regraded_s.push_back(again->measured_time_s);
        points.push_back(point);
    }
    auto calibration = calibration_over_time(counted_graded);
    bool halves = counted_graded.size() >= 2;  // a trend needs a measurement on each side
    const auto& overall = calibration.all;
    const auto& first = calibration.first_half;
    const auto& second = calibration.second_half;
    std::vector<std::string> pending;
    for (const auto& p : log.predictions) {
        bool measured = std::any_of(log.measurements.begin(), log.measurements.end(),
                                    [&](const Measurement& m) { return m.prediction_id == p.id; });
        if (!measured) pending.push_back(fmt::format("{} {}/{}", p.id, p.lab, p.variant));
    }
    if (!f.svg.empty()) {
        write_output_file(f.svg, prediction_scatter_svg("predicted against measured: " + path.filename().string(), points),
                          "--svg");
    }
    // DRAM bytes: predicted (`predict --bytes`) against counted (`roofline profile`).
    auto profiled = profiled_predictions(log);
    auto bytes = byte_calibration(profiled);
    nlohmann::json byte_rows = nlohmann::json::array();
    for (const auto& p : profiled) {
        byte_rows.push_back({{"prediction", p.prediction->id}, {"lab", p.prediction->lab},
                             {"variant", p.prediction->variant}, {"predicted_bytes", *p.prediction->predicted_dram_bytes},
                             {"counted_bytes", p.first->dram_bytes}, {"ratio", p.ratio()}, {"gpu", p.first->gpu}});
    }
    // Time on each lab, from the entries' own times (time_on_lab.hpp: a lower bound).
    auto labs_timed = time_on_labs(log);
    nlohmann::json time_rows = nlohmann::json::array();
    for (const auto& t : labs_timed) {
        time_rows.push_back({{"lab", t.lab}, {"logged_hours", t.logged_hours}, {"sittings", t.sittings},
                             {"entries", t.entries}});
    }
    if (f.json) {
        nlohmann::json out = {{"log", path.string()},
                              {"time_on_labs", {{"idle_gap_minutes", kIdleGapMinutes}, {"labs", time_rows}}},
                              {"bytes", {{"entries", byte_rows},
                                         {"count", bytes.count},
                                         {"median_abs_log2_ratio", bytes.count ? nlohmann::json(bytes.median_abs_log2)
                                                                               : nlohmann::json(nullptr)},
                                         {"share_within_10_percent", bytes.count ? nlohmann::json(bytes.share_within_10pct)
                                                                                 : nlohmann::json(nullptr)}}},
                              {"entries", rows},
                              {"graded_on_cpu", cpu_rows},
                              {"calibration", {{"all", calibration_json(overall)},
                                               {"first_half", halves ? calibration_json(first) : nullptr},
                                               {"second_half", halves ? calibration_json(second) : nullptr},
                                               {"edited_left_out", edited_count},
                                               {"trend", calibration.trend ? std::string(trend_name(*calibration.trend))
                                                                           : std::string("none")}}},
                              {"not_yet_measured", pending}};
        fmt::print("{}\n", out.dump(2));
        return;
    }
    fmt::print("{} ({} predictions, {} measurements)\n\n", path.string(), log.predictions.size(), log.measurements.size());
    fmt::print("{:<20} {:<38} {:>11} {:>11} {:>7}  {:<19} {}\n", "measured at", "lab/variant", "predicted", "measured",
               "ratio", "regime (you/it)", "");
    for (const auto& r : rows) {
        std::string target = r["lab"].get<std::string>() + "/" + r["variant"].get<std::string>();
        std::string regime = r["predicted_regime"].get<std::string>() + "/" + r["measured_regime"].get<std::string>();
        fmt::print("{:<20} {:<38} {:>11} {:>11} {:>6.2f}x  {:<19} {}{}{}\n", r["when"].get<std::string>(), target,
                   seconds(r["predicted_s"].get<double>()), seconds(r["measured_s"].get<double>()),
                   r["ratio"].get<double>(), regime, r["correct"].get<bool>() ? "" : "incorrect ",
                   r["regrading"].get<bool>() ? fmt::format("{} graded again, not counted ", r["prediction"].get<std::string>()) : "",
                   r["edited_after_measurement"].get<bool>() ? "PREDICTION EDITED AFTER MEASUREMENT" : "");
        for (const auto& n : r["gap_notes"]) {
            fmt::print("{:<20} gap note on {}: {}\n", "", r["measurement"].get<std::string>(), n["why"].get<std::string>());
        }
    }
    if (!cpu_rows.empty()) {
        fmt::print("\ngraded on the CPU (no time, no prediction: not part of the calibration)\n");
        for (const auto& r : cpu_rows) {
            fmt::print("{:<20} {:<38} {:<9} {:g} / {:g} points\n", r["when"].get<std::string>(),
                       r["lab"].get<std::string>() + "/" + r["variant"].get<std::string>(),
                       r["correct"].get<bool>() ? "correct" : "incorrect", r["points"].get<double>(),
                       r["max_points"].get<double>());
            for (const auto& n : r["gap_notes"]) {
                fmt::print("{:<20} gap note on {}: {}\n", "", r["measurement"].get<std::string>(), n["why"].get<std::string>());
            }
        }
    }
    auto line = [](const char* name, const Calibration& c) {
        if (c.count == 0) return fmt::format("  {:<12} no measurements\n", name);
        return fmt::format("  {:<12} {:>3} entries: median error {:.2f}x, {:.0f}% within 1.5x\n", name, c.count,
                           std::exp2(c.median_abs_log2), 100 * c.share_within_1_5x);
    };
    fmt::print("\ncalibration (median error is 2^median|log2(measured/predicted)|; 1.00x is perfect;\n"
               "each prediction counts once, at its first measurement)\n");
    fmt::print("{}", line("all", overall));
    if (halves) fmt::print("{}{}", line("first half", first), line("second half", second));
    else if (overall.count == 1) fmt::print("  a trend over time needs a second measurement\n");
    if (edited_count > 0) {
        fmt::print("  left out: {} prediction(s) edited after they were measured\n", edited_count);
    }
    if (calibration.trend == Trend::closing) fmt::print("  the gap is closing\n");
    if (calibration.trend == Trend::widening) fmt::print("  the gap is widening\n");
    if (calibration.trend == Trend::unchanged) {
        fmt::print("  the gap is unchanged within noise (the halves' median errors are less than 1.1x apart)\n");
    }
    if (!profiled.empty()) {
        fmt::print("\nDRAM bytes, predicted (predict --bytes) against counted (roofline profile):\n");
        for (const auto& r : byte_rows) {
            fmt::print("  {:<4} {:<38} {:>11} {:>11} {:>6.2f}x\n", r["prediction"].get<std::string>(),
                       r["lab"].get<std::string>() + "/" + r["variant"].get<std::string>(),
                       si(r["predicted_bytes"].get<double>(), "B"), si(r["counted_bytes"].get<double>(), "B"),
                       r["ratio"].get<double>());
        }
        fmt::print("  byte calibration: {} entries, median error {:.2f}x, {:.0f}% within 10%\n", bytes.count,
                   std::exp2(bytes.median_abs_log2), 100 * bytes.share_within_10pct);
    }
    if (!labs_timed.empty()) {
        fmt::print("\ntime logged on each lab (between this log's entries; a gap of {:g} min or more is a break,\n"
                   "and the time before a sitting's first entry is not in the log):\n",
                   kIdleGapMinutes);
        for (const auto& t : labs_timed)
            fmt::print("  {:<24} {:>5.1f} h in {} sitting{}\n", t.lab, t.logged_hours, t.sittings, t.sittings == 1 ? "" : "s");
    }
    if (!pending.empty()) fmt::print("\nnot graded yet: {}\n", fmt::join(pending, ", "));
    std::vector<std::string> unexplained;
    for (const auto& m : log.measurements) {
        bool newest = log.latest_graded(m.lab, m.variant) == &m;
        if (newest && log.notes_for(m.id).empty()) unexplained.push_back(fmt::format("{} {}/{}", m.id, m.lab, m.variant));
    }
    if (!unexplained.empty()) {
        fmt::print("\nno gap note yet (roofline explain LAB/VARIANT --why \"...\"): {}\n", fmt::join(unexplained, ", "));
    }
    if (!f.svg.empty()) fmt::print("\nscatter written to {}\n", f.svg);
}

}  // namespace

void add_log_command(CLI::App& app, Context& context) {
    static LogFlags f;
    auto* log = app.add_subcommand("log", "your predictions against the measurements, and calibration over time");
    log->add_option("--log", f.log, "the prediction log (default: predictions.yaml at the course root)")->check(file_path());
    log->add_flag("--json", f.json, "the same as JSON");
    log->add_option("--svg", f.svg, "write a predicted-against-measured scatter (SVG) here")->check(file_path());
    log->callback([&context] { run_log(context, f); });
}

}  // namespace roofline::cli
