#include "class_report.hpp"

#include "batch.hpp"
#include "file_text.hpp"
#include "html_page.hpp"
#include "html_text.hpp"
#include "input_error.hpp"
#include "time_on_lab.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <set>

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

// The hours each student's log shows on the lab (time_on_lab.hpp), for setting the module's
// hours: the class's median and range, with what the figure is and is not.
std::string logged_hours(const std::vector<SubmissionResult>& results) {
    std::vector<double> hours;
    for (const auto& r : results)
        if (r.logged_hours) hours.push_back(*r.logged_hours);
    std::string about = fmt::format(
        "<p>From each student's <code>predictions.yaml</code>: the time between the lab's entries, a gap of {:g} "
        "minutes or more counted as a break. It is a lower bound (reading the lesson and writing code before a "
        "sitting's first entry leave no entry) and the student's own account (the times are in a file the student "
        "holds): a guide to the module's hours, never part of a grade.</p>\n",
        kIdleGapMinutes);
    if (hours.empty()) return about + "<p>No submission's log has two entries of this lab.</p>\n";
    std::sort(hours.begin(), hours.end());
    const std::size_t n = hours.size();
    const double median = n % 2 ? hours[n / 2] : (hours[n / 2 - 1] + hours[n / 2]) / 2;
    return about + fmt::format("<div class='table-wrap'><table id='logged-hours'><caption>Hours logged on the lab"
                               "</caption>\n<thead><tr><th>logs</th><th class='num'>median</th><th class='num'>"
                               "shortest</th><th class='num'>longest</th></tr></thead>\n<tbody><tr><td>{}</td>"
                               "<td class='num'>{:.1f} h</td><td class='num'>{:.1f} h</td><td class='num'>{:.1f} h</td>"
                               "</tr></tbody></table></div>\n",
                               n, median, hours.front(), hours.back());
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

// A kernel at or beyond its rung's target earns full performance marks (score.cpp): the
// fraction it is scored on (of the roofline or of the peer) reaches target_fraction.
bool beyond_target(const RungEntry& e, const RungTarget& t) { return e.fraction_scored >= t.fraction - 1e-12; }

// One table per rung: every correct kernel ranked by its fraction of the roofline, the
// rung's target drawn on each bar (in roofline terms: for a rung scored against the peer,
// the target times the peer's rate over the roof, which differs run to run), and every
// kernel at or beyond the target flagged.
std::string rung_leaderboards(const std::vector<RungEntry>& entries, const std::vector<RungTarget>& targets) {
    std::vector<std::string> order;
    std::map<std::string, const RungTarget*> target_of;
    for (const auto& t : targets) {
        order.push_back(t.variant);
        target_of[t.variant] = &t;
    }
    std::set<std::string> extra;  // a rung graded but not in the lab.yaml read (or none read)
    for (const auto& e : entries) {
        if (!target_of.count(e.variant)) extra.insert(e.variant);
    }
    order.insert(order.end(), extra.begin(), extra.end());
    if (entries.empty()) return "<p>No kernel was graded correct.</p>\n";

    std::string out = "<p>Each rung's correct kernels ranked by their fraction of the roofline. The red mark on a bar "
                      "is the rung's target (what full performance marks need); a kernel at or beyond it is flagged "
                      "<span class='badge'>beyond the target</span>: a design worth showing the class.</p>\n";
    for (const auto& variant : order) {
        std::vector<RungEntry> ranked;
        for (const auto& e : entries) {
            if (e.variant == variant) ranked.push_back(e);
        }
        const RungTarget* target = target_of.count(variant) ? target_of[variant] : nullptr;
        int beyond = 0;
        for (const auto& e : ranked) beyond += target && beyond_target(e, *target);
        std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) {
            if (a.fraction_of_roofline != b.fraction_of_roofline) return a.fraction_of_roofline > b.fraction_of_roofline;
            return a.submission < b.submission;
        });
        std::string heading = target ? fmt::format("target {:.0f}% of the {}; {} of {} correct kernels at or beyond it",
                                                   100 * target->fraction, target->against, beyond, ranked.size())
                                     : fmt::format("target unknown (the batch's lab.yaml was not read); {} correct kernels",
                                                   ranked.size());
        // The open rung (the student's own design) is named as such: its designs are the ones to compare.
        const bool open = target && target->open;
        out += fmt::format("<h3 id='rung-{0}-title'>{0}{2}</h3>\n<p class='note' id='rung-{0}-target'>{1}</p>\n",
                           html_escape(variant), heading,
                           open ? " <span class='badge open' id='rung-" + html_escape(variant) + "-open'>open rung: "
                                  "the design is the student's</span>"
                                : std::string());
        if (ranked.empty()) {
            out += "<p>No kernel was graded correct on this rung.</p>\n";
            continue;
        }
        std::string rows;
        int rank = 0;
        for (const auto& e : ranked) {
            double width = std::clamp(100 * e.fraction_of_roofline, 0.0, 100.0);
            std::string mark, flag;
            if (target) {
                // the target in fractions of the roofline for this run; unknown when nothing was scored
                double scale = e.fraction_scored > 0 ? e.fraction_of_roofline / e.fraction_scored : 0;
                if (scale > 0) {
                    mark = fmt::format("<div class='target-mark' title='target' style='left:{:.1f}%'></div>",
                                       std::clamp(100 * target->fraction * scale, 0.0, 100.0));
                }
                if (beyond_target(e, *target)) flag = "<span class='badge beyond'>beyond the target</span>";
            }
            rows += fmt::format("<tr><td class='num'>{}</td><td class='submission'>{}</td><td class='num'>{:.1f}%"
                                "<div class='bar-track' aria-hidden='true'><div class='bar' style='width:{:.1f}%'></div>"
                                "{}</div></td><td class='num'>{:.1f}%</td><td>{}</td><td>{}</td></tr>\n",
                                ++rank, html_escape(e.submission), 100 * e.fraction_of_roofline, width, mark,
                                100 * e.fraction_scored, html_escape(e.scored_against), flag);
        }
        out += fmt::format("<div class='table-wrap'><table id='rung-{0}'><caption>{0}: correct kernels by fraction of "
                           "the roofline</caption>\n<thead><tr><th class='num'>rank</th><th>submission</th><th "
                           "class='num'>fraction of the roofline</th><th class='num'>fraction scored</th><th>scored "
                           "against</th><th>target</th></tr></thead>\n<tbody>\n",
                           html_escape(variant)) + rows + "</tbody></table></div>\n";
    }
    return out;
}

// Each submission's variants timed beside other processes on the GPU, with the processes named.
std::string shared_gpu_list(const std::vector<SubmissionResult>& results) {
    std::string out;
    for (const auto& r : results) {
        for (const auto& n : r.shared_gpu) {
            out += fmt::format("<li><b class='submission'>{}</b> {}: {}</li>\n", html_escape(r.submission),
                               html_escape(n.variant), html_escape(n.note));
        }
    }
    return "<p>" + html_escape(kSharedGpuAbout) + "</p>\n<ul id='shared-gpu'>\n" + out + "</ul>\n";
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

std::vector<RungEntry> class_rung_entries(const std::string& submission, const std::string& grade_json_text) {
    auto parsed = nlohmann::json::parse(grade_json_text, nullptr, false);
    if (parsed.is_object()) parsed = nlohmann::json::array({parsed});
    std::vector<RungEntry> entries;
    if (!parsed.is_array()) return entries;
    for (const auto& grade : parsed) {
        try {
            if (!grade.is_object() || !grade.value("correct", false)) continue;
            auto target = grade.value("target", std::string());
            RungEntry e;
            e.variant = target.substr(target.find('/') == std::string::npos ? 0 : target.find('/') + 1);
            e.submission = submission;
            double attainable = grade.value("attainable", 0.0);
            // an older grade JSON has no fraction_of_roofline: achieved over attainable is the same number
            e.fraction_of_roofline = grade.contains("fraction_of_roofline") ? grade.at("fraction_of_roofline").get<double>()
                                     : attainable > 0 ? grade.value("achieved", 0.0) / attainable
                                                      : 0;
            e.fraction_scored = grade.value("fraction_scored", e.fraction_of_roofline);
            e.scored_against = grade.value("scored_against", std::string());
            if (e.variant.empty() || !std::isfinite(e.fraction_of_roofline) || !std::isfinite(e.fraction_scored)) continue;
            entries.push_back(e);
        } catch (const nlohmann::json::exception&) {
            // a field of the wrong type: this kernel is left off the rung's table, the rest stay
        }
    }
    return entries;
}

std::vector<RungTarget> rung_targets(const LabSpec& lab) {
    std::vector<RungTarget> targets;
    for (const auto& v : lab.variants) targets.push_back({v.name, v.target_fraction, v.against, v.open});
    return targets;
}

std::string class_report_html(const BatchFacts& facts, std::vector<SubmissionResult> results,
                              const std::vector<ChartPoint>& points, const std::vector<RungEntry>& rungs,
                              const std::vector<RungTarget>& targets) {
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
    bool shared = std::any_of(results.begin(), results.end(), [](const auto& r) { return !r.shared_gpu.empty(); });
    body += fmt::format("<nav aria-label='sections'><ul><li><a href='#outcomes-title'>outcomes</a></li><li><a "
                        "href='#distribution-title'>distribution</a></li><li><a href='#leaderboard-title'>leaderboard"
                        "</a></li><li><a href='#rungs-title'>per rung</a></li>{}<li><a href='#class-roofline-title'>"
                        "roofline</a></li><li><a href='#hours-title'>hours</a></li><li><a href='#failures-title'>"
                        "failures</a></li></ul></nav></header>\n<main>\n",
                        shared ? "<li><a href='#shared-gpu-title'>shared GPU</a></li>" : "");
    body += "<h2 id='outcomes-title'>Outcomes</h2>\n" + outcomes_table(results);
    body += "<h2 id='distribution-title'>Score distribution</h2>\n" + distribution(results);
    body += "<h2 id='leaderboard-title'>Leaderboard</h2>\n" + leaderboard(results);
    body += "<h2 id='rungs-title'>Leaderboard per rung</h2>\n" + rung_leaderboards(rungs, targets);
    if (shared) body += "<h2 id='shared-gpu-title'>Timed on a shared GPU</h2>\n" + shared_gpu_list(results);
    body += "<h2 id='class-roofline-title'>Every submission on one roofline</h2>\n"
            "<p>Each correct kernel of each submission at its fraction of the roof that binds it (the memory roof "
            "left of its ridge, the compute roof right of it); one shape and colour per submission.</p>\n";
    if (points.empty()) body += "<p>No kernel was graded correct.</p>\n";
    else body += roofline_chart_html(facts.lab + ": every submission's kernels", points) +
                 roofline_table_html("Every submission's kernels", points);
    body += "<h2 id='hours-title'>Time on the lab</h2>\n" + logged_hours(results);
    body += "<h2 id='failures-title'>Failures</h2>\n" + failures(results) + "</main>\n";
    return html_page("Batch grading: " + facts.lab, body);
}

void write_class_report(const std::filesystem::path& out, const BatchFacts& facts,
                        const std::vector<SubmissionResult>& results) {
    std::vector<ChartPoint> points;
    std::vector<RungEntry> rungs;
    for (const auto& r : results) {
        auto grade_json = read_file_text(submission_dir(out, r.submission) / "grade.json");
        auto more = class_points(r.submission, grade_json);
        points.insert(points.end(), more.begin(), more.end());
        auto entries = class_rung_entries(r.submission, grade_json);
        rungs.insert(rungs.end(), entries.begin(), entries.end());
    }
    // The lab.yaml the batch graded against (a hidden file's shapes change no target). A batch
    // folder without it still gets its report, its rungs without a target.
    std::vector<RungTarget> targets;
    auto lab_yaml = out / "lab" / facts.lab / "lab.yaml";
    if (std::error_code ec; !std::filesystem::exists(lab_yaml, ec) && std::filesystem::is_directory(out / "lab", ec)) {
        // a folder written before the renumbering names the lab by its old name: the one lab there
        for (const auto& entry : std::filesystem::directory_iterator(out / "lab", ec)) {
            if (std::filesystem::exists(entry.path() / "lab.yaml", ec)) lab_yaml = entry.path() / "lab.yaml";
        }
    }
    try {
        if (std::filesystem::exists(lab_yaml)) targets = rung_targets(load_lab(lab_yaml));
    } catch (const InputError& e) {
        fmt::print(stderr, "warning: {}; report.html shows the rungs without their targets\n", e.what());
    }
    write_html_file(out / "report.html", class_report_html(facts, results, points, rungs, targets));
}

}  // namespace roofline::batch
