#include "html_report.hpp"

#include "file_text.hpp"
#include "html_calculator.hpp"
#include "html_page.hpp"
#include "html_prediction_log.hpp"
#include "html_roofline_chart.hpp"
#include "html_text.hpp"
#include "incident_score.hpp"
#include "input_error.hpp"
#include "lab_spec.hpp"
#include "prediction_log.hpp"
#include "source_hash.hpp"
#include "svg_step.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

namespace roofline {

namespace {

struct LabState {
    const LabSpec* lab = nullptr;
    int graded = 0;                 // correct grades saved
    double points = 0, max_points = 0;
    std::vector<std::string> left;  // variants not graded, or graded incorrect
};

// A saved grade, or a discarded value where there is none or it does not parse.
nlohmann::json saved_grade(const Workspace& ws, const LabSpec& lab, const VariantSpec& v) {
    auto file = ws.saved_grade(lab.id, false, v.name);
    if (!std::filesystem::exists(file)) return nlohmann::json(nlohmann::json::value_t::discarded);
    return nlohmann::json::parse(read_file_text(file), nullptr, false);
}

double points_of(const nlohmann::json& grade) {
    if (!grade.contains("points") || !grade["points"].is_object()) return 0;
    auto total = grade["points"].value("total", 0.0);
    return std::isfinite(total) ? total : 0;
}

std::string labs_section(const std::vector<LabState>& states) {
    std::string rows;
    for (const auto& s : states) {
        rows += fmt::format("<tr><td>{}</td><td>{}</td><td class='num'>{} of {}</td><td class='num'>{:.1f} / {:g}</td>"
                            "<td>{}</td></tr>\n",
                            html_escape(s.lab->id), html_escape(s.lab->title), s.graded, s.lab->variants.size(),
                            s.points, s.max_points,
                            s.left.empty() ? "nothing: every variant graded correct"
                                           : html_escape(fmt::format("{}", fmt::join(s.left, ", "))));
    }
    return fmt::format("<section id='labs' aria-labelledby='labs-title'>\n<h2 id='labs-title'>Where each lab stands</h2>\n"
                       "<p>From the last grade of each variant. Points are the last grade's; a variant left is not "
                       "graded yet or its last grade was incorrect.</p>\n"
                       "<div class='table-wrap'><table id='lab-table'><caption>Labs</caption>\n<thead><tr><th>lab</th>"
                       "<th>title</th><th class='num'>variants graded correct</th><th class='num'>points</th>"
                       "<th>left</th></tr></thead>\n<tbody>\n{}</tbody></table></div>\n</section>\n",
                       rows);
}

// Module 10's incidents: each serve record under .roofline/serve/, checked as `roofline diagnose`
// checks it (a record that does not pass is named with the reason, never drawn), with the newest
// diagnosis of it scored, its timeline and the step on the roofline.
std::string incidents_section(const Workspace& ws, const PredictionLog& log) {
    std::vector<std::filesystem::path> records;
    std::error_code error;
    if (std::filesystem::is_directory(ws.serve_dir(), error))
        for (const auto& entry : std::filesystem::directory_iterator(ws.serve_dir(), error))
            if (entry.path().extension() == ".json" && entry.is_regular_file()) records.push_back(entry.path());
    if (records.empty()) return "";
    std::sort(records.begin(), records.end());
    std::string html = "<section id='incidents' aria-labelledby='incidents-title'>\n<h2 id='incidents-title'>Your "
                       "incidents (module 10)</h2>\n<p>Each configuration you ran with <code>roofline serve</code>: "
                       "the step's ops on one time axis, coloured by the regime each op runs in, then each op and the "
                       "whole step on the roofline, and your diagnosis scored against the step's numbers.</p>\n";
    for (const auto& file : records) {
        try {
            auto report = load_incident_report(file);
            html += fmt::format("<h3>{}</h3>\n<pre>{}</pre>\n", html_escape(report.incident),
                                html_escape(incident_text(report)));
            const Diagnosis* diagnosis = nullptr;
            for (const auto& d : log.diagnoses)
                if (d.variant == report.incident && parse_regime(d.cause)) diagnosis = &d;
            if (diagnosis) {
                auto score = score_incident(*diagnosis, report, hash_file(file), std::nullopt);
                html += fmt::format("<p>Your diagnosis ({}): {:g} of {:g} points.</p>\n<pre>{}</pre>\n",
                                    html_escape(diagnosis->written_at), score.points, score.max_points,
                                    html_escape(incident_score_text(score)));
            } else {
                html += fmt::format("<p>No diagnosis yet: <code>roofline diagnose 10-production/{} --cause ... "
                                    "--tokens-per-s ... --why \"...\"</code>.</p>\n",
                                    html_escape(report.incident));
            }
            html += "<figure class='step-timeline'>" + step_timeline_svg(report) +
                    "<figcaption>The step's timeline: hover a bar for its times.</figcaption></figure>\n";
            html += "<figure class='step-roofline'>" + step_roofline_svg(report) +
                    "<figcaption>The step on the roofline: each op, and the whole step.</figcaption></figure>\n";
        } catch (const InputError& e) {
            html += fmt::format("<h3>{}</h3>\n<p class='note'>Not shown: {}</p>\n", html_escape(file.stem().string()),
                                html_escape(e.what()));
        }
    }
    return html + "</section>\n";
}

}  // namespace

std::string student_report_html(const Workspace& ws, const std::filesystem::path& log_file) {
    auto calculator = calculator_data(ws);
    auto log = load_log(log_file);
    auto labs = load_labs(ws.labs_dir());

    std::vector<LabState> states;
    std::map<std::string, std::vector<ChartPoint>> by_gpu;  // the GPU each grade ran on
    for (const auto& lab : labs) {
        LabState state{&lab, 0, 0, 0, {}};
        for (const auto& v : lab.variants) {
            state.max_points += v.cpu_graded ? lab.scoring.correctness : lab.scoring.total();
            auto grade = saved_grade(ws, lab, v);
            if (grade.is_discarded() || !grade.is_object()) {
                state.left.push_back(v.name + " (not graded)");
                continue;
            }
            if (!grade.value("correct", false)) {
                state.left.push_back(v.name + " (incorrect)");
                continue;
            }
            ++state.graded;
            state.points += points_of(grade);
            if (auto placement = place_graded(v.name, grade)) {
                auto gpu = grade.value("gpu", std::string("an unnamed GPU"));
                by_gpu[gpu].push_back({*placement, predicted_fraction(*placement, grade), lab.id});
            }
        }
        states.push_back(state);
    }

    std::string roofline = "<section id='your-roofline' aria-labelledby='your-roofline-title'>\n"
                           "<h2 id='your-roofline-title'>Your kernels on the roofline</h2>\n"
                           "<p>Every variant you graded correct, at its last grade, on the roofline of the GPU it ran on: "
                           "across, its arithmetic intensity; up, its rate as a fraction of the roof that binds it "
                           "(the memory roof left of its ridge, the compute roof right of it), so 100% is the roof "
                           "for every kernel. The hollow mark is where your prediction put it.</p>\n";
    if (by_gpu.empty()) {
        roofline += "<p>Nothing graded yet: <code>roofline grade LAB/VARIANT</code> on a machine with an NVIDIA GPU "
                    "fills this in.</p>\n";
    }
    for (const auto& [gpu, points] : by_gpu) {
        roofline += roofline_chart_html("graded on " + gpu, points);
        roofline += roofline_table_html("Your kernels graded on " + gpu, points);
    }
    roofline += "</section>\n";

    std::string body = fmt::format(
        "<header><h1>The roofline course: your report</h1>\n<p class='note'>Written {} from {} by "
        "<code>roofline report</code>. One file, nothing fetched: it opens from disk in any browser.</p>\n"
        "<nav aria-label='sections'><ul><li><a href='#calculator'>calculator</a></li><li><a href='#your-roofline'>your "
        "roofline</a></li><li><a href='#predictions'>predictions</a></li><li><a href='#labs'>labs</a></li></ul></nav>"
        "</header>\n<main>\n",
        html_escape(utc_now_iso8601()), html_escape(ws.root.string()));
    body += calculator_section(calculator);
    body += roofline;
    body += prediction_log_section(log);
    body += labs_section(states);
    body += incidents_section(ws, log);
    body += "</main>\n";
    return html_page("The roofline course: your report", body);
}

}  // namespace roofline
