#include "html_report.hpp"

#include "file_text.hpp"
#include "html_calculator.hpp"
#include "html_page.hpp"
#include "html_prediction_log.hpp"
#include "html_roofline_chart.hpp"
#include "html_text.hpp"
#include "lab_spec.hpp"
#include "prediction_log.hpp"

#include <fmt/format.h>

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
    body += "</main>\n";
    return html_page("The roofline course: your report", body);
}

}  // namespace roofline
