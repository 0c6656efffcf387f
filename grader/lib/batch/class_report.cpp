#include "class_report.hpp"

#include "batch.hpp"
#include "file_text.hpp"
#include "html_page.hpp"
#include "html_text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <map>

namespace roofline::batch {

namespace {

std::string outcomes_table(const std::vector<SubmissionResult>& results) {
    std::map<int, int> counts;
    for (const auto& r : results) counts[static_cast<int>(r.outcome)]++;
    std::string rows;
    for (const auto& [outcome, count] : counts) {
        rows += fmt::format("<tr><td>{}</td><td class='num'>{}</td></tr>\n", outcome_name(static_cast<SubmissionOutcome>(outcome)), count);
    }
    return "<div class='table-wrap'><table id='outcomes'><caption>Outcomes, worst first</caption>\n<thead><tr>"
           "<th>outcome</th><th class='num'>submissions</th></tr></thead>\n<tbody>\n" + rows + "</tbody></table></div>\n";
}

// Percent of the maximum score in buckets of ten: bars, with the counts written on them, and a table.
std::string distribution(const std::vector<SubmissionResult>& results) {
    std::array<int, 10> buckets{};
    for (const auto& r : results) {
        double percent = r.max_score > 0 ? 100 * r.score / r.max_score : 0;
        buckets[std::clamp(int(percent / 10), 0, 9)]++;
    }
    int most = std::max(1, *std::max_element(buckets.begin(), buckets.end()));
    const double left = 50, top = 20, width = 600, height = 200, bottom = top + height, step = width / 10;
    std::string svg = fmt::format("<svg viewBox='0 0 {} {}' role='img' aria-label='score distribution'>\n",
                                  left + width + 20, bottom + 44);
    std::string rows;
    for (int b = 0; b < 10; ++b) {
        double h = height * buckets[b] / most;
        svg += fmt::format("<rect x='{:.1f}' y='{:.1f}' width='{:.1f}' height='{:.1f}' fill='#888' stroke='black'/>"
                           "<text x='{:.1f}' y='{:.1f}' font-size='12' text-anchor='middle'>{}</text>"
                           "<text x='{:.1f}' y='{}' font-size='11' text-anchor='middle'>{}%</text>\n",
                           left + b * step + 4, bottom - h, step - 8, h, left + (b + 0.5) * step, bottom - h - 4,
                           buckets[b], left + (b + 0.5) * step, bottom + 16, 10 * b);
        rows = fmt::format("<tr><td>{}-{}%</td><td class='num'>{}</td></tr>\n", 10 * b, b == 9 ? 100 : 10 * b + 9,
                           buckets[b]) + rows;
    }
    svg += fmt::format("<line x1='{}' y1='{}' x2='{}' y2='{}' stroke='black'/><text x='{}' y='{}' font-size='12' "
                       "text-anchor='middle'>percent of the maximum score (bucket start); the number on each bar is "
                       "its submissions</text>\n</svg>\n",
                       left, bottom, left + width, bottom, left + width / 2, bottom + 36);
    return "<figure>" + svg + "<figcaption>The score distribution.</figcaption></figure>\n"
           "<div class='table-wrap'><table id='distribution'><caption>Score distribution</caption>\n<thead><tr>"
           "<th>score</th><th class='num'>submissions</th></tr></thead>\n<tbody>\n" + rows + "</tbody></table></div>\n";
}

std::string leaderboard(std::vector<SubmissionResult> ranked) {
    std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) {
        if (a.mean_fraction_of_roofline != b.mean_fraction_of_roofline) {
            return a.mean_fraction_of_roofline > b.mean_fraction_of_roofline;
        }
        return a.score > b.score;
    });
    std::string rows;
    int rank = 0;
    for (const auto& r : ranked) {
        double width = std::clamp(100 * r.mean_fraction_of_roofline, 0.0, 100.0);
        rows += fmt::format("<tr><td class='num'>{}</td><td class='submission'>{}</td><td class='num'>{:.1f}%"
                            "<div class='bar-track' aria-hidden='true'><div class='bar' style='width:{:.1f}%'></div></div>"
                            "</td><td class='num'>{:.1f}%</td><td class='num'>{:.1f} / {:g}</td><td>{}</td></tr>\n",
                            ++rank, html_escape(r.submission), 100 * r.mean_fraction_of_roofline, width,
                            100 * r.best_fraction_of_roofline, r.score, r.max_score, outcome_name(r.outcome));
    }
    return "<div class='table-wrap'><table id='leaderboard'><caption>Leaderboard by mean fraction of the roofline "
           "(over the lab's variants, 0 for a variant not timed; ties broken by score)</caption>\n<thead><tr>"
           "<th class='num'>rank</th><th>submission</th><th class='num'>mean fraction</th><th class='num'>best "
           "fraction</th><th class='num'>score</th><th>outcome</th></tr></thead>\n<tbody>\n" + rows +
           "</tbody></table></div>\n";
}

std::string failures(const std::vector<SubmissionResult>& results) {
    std::string out;
    for (const auto& r : results) {
        if (r.outcome == SubmissionOutcome::graded) continue;
        out += fmt::format("<li><b class='submission'>{}</b>: <span class='badge'>{}</span> ({:.1f} / {:g})", 
                           html_escape(r.submission), outcome_name(r.outcome), r.score, r.max_score);
        if (!r.reason.empty()) out += "<pre>" + html_escape(r.reason) + "</pre>";
        out += "</li>\n";
    }
    return out.empty() ? "<p>None.</p>\n" : "<ul id='failures'>\n" + out + "</ul>\n";
}

}  // namespace

std::vector<ChartPoint> class_points(const std::string& submission, const std::string& grade_json_text) {
    auto parsed = nlohmann::json::parse(grade_json_text, nullptr, false);
    if (parsed.is_object()) parsed = nlohmann::json::array({parsed});
    std::vector<ChartPoint> points;
    if (!parsed.is_array()) return points;
    for (const auto& grade : parsed) {
        if (!grade.is_object()) continue;
        auto target = grade.value("target", std::string());
        auto variant = target.substr(target.find('/') == std::string::npos ? 0 : target.find('/') + 1);
        try {
            if (auto placement = place_graded(variant, grade)) {
                points.push_back({*placement, predicted_fraction(*placement, grade), submission});
            }
        } catch (const nlohmann::json::exception&) {
            // a field of the wrong type: this kernel is left off the chart, the rest stay
        }
    }
    return points;
}

std::string class_report_html(const BatchFacts& facts, std::vector<SubmissionResult> results,
                              const std::vector<ChartPoint>& points) {
    std::sort(results.begin(), results.end(), [](const auto& a, const auto& b) { return a.submission < b.submission; });
    std::string body = fmt::format("<header><h1>Batch grading: {}</h1>\n<p>{} submissions graded, seed {}{}.</p>\n",
                                   html_escape(facts.lab), results.size(), facts.seed,
                                   facts.hidden.empty() ? ", public shapes (no hidden file)"
                                                        : ", hidden file " + html_escape(facts.hidden));
    if (!facts.not_graded.empty()) {
        std::vector<std::string> names;
        for (const auto& n : facts.not_graded) names.push_back(html_escape(n));
        body += fmt::format("<p class='error'>Not graded yet ({}): {}. Run the batch (or the missing slices) again: it "
                            "resumes.</p>\n", names.size(), fmt::join(names, ", "));
    }
    if (auto warnings = class_warnings(results); !warnings.empty()) {
        body += "<p class='error'>Look at these first:</p>\n<ul>\n";
        for (const auto& line : warnings) body += "<li>" + html_escape(line) + "</li>\n";
        body += "</ul>\n";
    }
    body += "<nav aria-label='sections'><ul><li><a href='#outcomes-title'>outcomes</a></li><li><a href='#distribution-"
            "title'>distribution</a></li><li><a href='#leaderboard-title'>leaderboard</a></li><li><a href='#class-"
            "roofline-title'>roofline</a></li><li><a href='#failures-title'>failures</a></li></ul></nav></header>\n<main>\n";
    body += "<h2 id='outcomes-title'>Outcomes</h2>\n" + outcomes_table(results);
    body += "<h2 id='distribution-title'>Score distribution</h2>\n" + distribution(results);
    body += "<h2 id='leaderboard-title'>Leaderboard</h2>\n" + leaderboard(results);
    body += "<h2 id='class-roofline-title'>Every submission on one roofline</h2>\n"
            "<p>Each correct kernel of each submission at its fraction of the roof that binds it (the memory roof "
            "left of its ridge, the compute roof right of it); one shape and colour per submission.</p>\n";
    if (points.empty()) body += "<p>No kernel was graded correct.</p>\n";
    else body += roofline_chart_html(facts.lab + ": every submission's kernels", points) +
                 roofline_table_html("Every submission's kernels", points);
    body += "<h2 id='failures-title'>Failures</h2>\n" + failures(results) + "</main>\n";
    return html_page("Batch grading: " + facts.lab, body);
}

void write_class_report(const std::filesystem::path& out, const BatchFacts& facts,
                        const std::vector<SubmissionResult>& results) {
    std::vector<ChartPoint> points;
    for (const auto& r : results) {
        auto more = class_points(r.submission, read_file_text(submission_dir(out, r.submission) / "grade.json"));
        points.insert(points.end(), more.begin(), more.end());
    }
    write_html_file(out / "report.html", class_report_html(facts, results, points));
}

}  // namespace roofline::batch
