#include "html_prediction_log.hpp"

#include "calibration.hpp"
#include "html_text.hpp"
#include "units.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace roofline {

namespace {

std::string ratio_text(double ratio) {
    return ratio >= 1 ? fmt::format("{:.2f}x slower than predicted", ratio)
                      : fmt::format("{:.2f}x faster than predicted", 1 / ratio);
}

std::string calibration_row(const char* name, const Calibration& c) {
    if (c.count == 0) return fmt::format("<tr><th scope='row'>{}</th><td class='num'>0</td><td>-</td><td>-</td></tr>\n", name);
    return fmt::format("<tr><th scope='row'>{}</th><td class='num'>{}</td><td class='num' data-value='{}'>{:.2f}x</td>"
                       "<td class='num' data-value='{}'>{:.0f}%</td></tr>\n",
                       name, c.count, exact_number(c.median_abs_log2), std::exp2(c.median_abs_log2),
                       exact_number(c.share_within_1_5x), 100 * c.share_within_1_5x);
}

// log2(measured / predicted) of each graded prediction, in the order measured,
// with the 1.5x band; the halves the trend compares split by a dashed line.
std::string over_time_chart(const std::vector<GradedPrediction>& graded) {
    const double left = 90, top = 30, width = 600, height = 260, bottom = top + height;
    double span = 2;
    for (const auto& g : graded) span = std::max(span, std::ceil(std::fabs(std::log2(g.ratio()))));
    span = std::min(span, 5.0);
    auto X = [&](std::size_t i) { return left + (i + 0.5) * width / graded.size(); };
    auto Y = [&](double l) { return top + (span - std::clamp(l, -span, span)) / (2 * span) * height; };
    double band = std::log2(1.5);
    std::string s = fmt::format("<svg viewBox='0 0 {} {}' role='img' aria-label='measured over predicted time, "
                                "prediction by prediction'>\n", left + width + 20, bottom + 50);
    s += fmt::format("<rect x='{}' y='{:.1f}' width='{}' height='{:.1f}' fill='#eee' stroke='#999' stroke-dasharray='4,3'/>\n",
                     left, Y(band), width, Y(-band) - Y(band));
    for (double l = -span; l <= span + 1e-9; l += 1) {
        auto label = l == 0 ? std::string("as predicted") : l > 0 ? fmt::format("{:g}x slower", std::exp2(l))
                                                                  : fmt::format("{:g}x faster", std::exp2(-l));
        s += fmt::format("<line x1='{}' y1='{:.1f}' x2='{}' y2='{:.1f}' stroke='{}'/>"
                         "<text x='{}' y='{:.1f}' font-size='11' text-anchor='end'>{}</text>\n",
                         left, Y(l), left + width, Y(l), l == 0 ? "black" : "#ddd", left - 6, Y(l) + 4, label);
    }
    s += fmt::format("<rect x='{}' y='{}' width='{}' height='{}' fill='none' stroke='#444'/>\n", left, top, width, height);
    s += fmt::format("<text x='{}' y='{:.1f}' font-size='11'>within 1.5x (shaded)</text>\n", left + 4, Y(band) - 4);
    if (graded.size() >= 2) {
        double split = left + (graded.size() / 2) * width / graded.size();
        s += fmt::format("<line x1='{0:.1f}' y1='{1}' x2='{0:.1f}' y2='{2}' stroke='#666' stroke-dasharray='6,4'/>"
                         "<text x='{0:.1f}' y='{3}' font-size='11' text-anchor='middle'>first half | second half</text>\n",
                         split, top, bottom, bottom + 16);
    }
    for (std::size_t i = 0; i < graded.size(); ++i) {
        const auto& g = graded[i];
        double l = std::log2(g.ratio());
        bool regime_right = g.prediction->regime == g.first->measured_regime;
        s += fmt::format("<g class='mark'><title>{}</title>{}</g>\n",
                         html_escape(fmt::format("{} {}/{}: predicted {}, measured {} ({}); regime {}", g.prediction->id,
                                                 g.prediction->lab, g.prediction->variant,
                                                 seconds(g.prediction->predicted_time_s),
                                                 seconds(g.first->measured_time_s), ratio_text(g.ratio()),
                                                 regime_right ? "right" : "wrong")),
                         regime_right ? fmt::format("<circle cx='{:.1f}' cy='{:.1f}' r='5' fill='#1f77b4' stroke='black'/>", X(i), Y(l))
                                      : fmt::format("<rect x='{:.1f}' y='{:.1f}' width='10' height='10' fill='white' "
                                                    "stroke='#d62728' stroke-width='2'/>", X(i) - 5, Y(l) - 5));
    }
    s += fmt::format("<text x='{}' y='{}' font-size='12' text-anchor='middle'>graded predictions, in the order "
                     "first measured (filled circle: regime right; hollow square: regime wrong)</text>\n</svg>\n",
                     left + width / 2, bottom + 36);
    return "<figure>" + s + "<figcaption>Each prediction at its first measurement: above the line it ran slower "
                            "than you predicted, below it faster.</figcaption></figure>\n";
}

}  // namespace

std::string prediction_log_section(const PredictionLog& log) {
    auto graded = graded_predictions(log);
    // The same rule as `roofline log`: predictions edited after their measurement are left out.
    auto counting = counted_predictions(log);
    const auto& counted = counting.counted;
    const int edited_left_out = counting.edited_left_out;
    auto calibration = calibration_over_time(counted);
    std::string out = "<section id='predictions' aria-labelledby='predictions-title'>\n"
                      "<h2 id='predictions-title'>Your predictions against the measurements</h2>\n";
    out += fmt::format("<p>{}: {} predictions, {} measurements. Each prediction counts once, at its first "
                       "measurement; grading it again measures the GPU's noise, not your guess.</p>\n",
                       html_escape(log.file.string()), log.predictions.size(), log.measurements.size());
    if (graded.empty()) {
        return out + "<p>Nothing measured yet: <code>roofline predict LAB/VARIANT ...</code>, then "
                     "<code>roofline grade LAB/VARIANT</code>.</p>\n</section>\n";
    }
    if (!counted.empty()) out += over_time_chart(counted);
    out += "<div class='table-wrap'><table id='calibration'><caption>Calibration: median error is 2 to the median "
           "|log2(measured / predicted)|, 1.00x is perfect</caption>\n<thead><tr><th>which</th><th class='num'>"
           "predictions</th><th class='num'>median error</th><th class='num'>within 1.5x</th></tr></thead>\n<tbody>\n";
    out += calibration_row("all", calibration.all) + calibration_row("first half", calibration.first_half) +
           calibration_row("second half", calibration.second_half) + "</tbody></table></div>\n";
    if (edited_left_out > 0) {
        out += fmt::format("<p id='edited-left-out' data-count='{}'>Left out: {} prediction(s) edited after they were "
                           "measured.</p>\n", edited_left_out, edited_left_out);
    }
    std::string trend = !calibration.trend ? "none yet (each half needs a graded prediction)"
                        : *calibration.trend == Trend::closing ? "closing: your second half of predictions is closer"
                        : *calibration.trend == Trend::widening ? "widening: your second half of predictions is further off"
                                                                 : "unchanged within noise (the halves' median errors are "
                                                                   "less than 1.1x apart)";
    out += fmt::format("<p id='trend' data-trend='{}'>The gap is <b>{}</b>.</p>\n",
                       calibration.trend ? std::string(trend_name(*calibration.trend)) : "none", html_escape(trend));

    std::string rows;
    for (const auto& g : graded) {
        const auto& p = *g.prediction;
        rows += fmt::format("<tr><td>{}</td><td>{}</td><td>{}/{}</td><td class='num'>{}</td><td class='num'>{}</td>"
                            "<td class='num'>{:.2f}x</td><td>{} / {}</td><td>{}</td><td>{}{}</td></tr>\n",
                            html_escape(g.first->measured_at), html_escape(p.id), html_escape(p.lab),
                            html_escape(p.variant), seconds(p.predicted_time_s), seconds(g.first->measured_time_s),
                            g.ratio(), regime_name(p.regime), regime_name(g.first->measured_regime),
                            html_escape(p.why), g.first->correct ? "" : "incorrect; ",
                            log.edited_after_measurement(p) ? "PREDICTION EDITED AFTER MEASUREMENT"
                            : g.regradings.empty()           ? ""
                                                             : fmt::format("graded {} more times, not counted", g.regradings.size()));
    }
    out += fmt::format("<div class='table-wrap'><table id='prediction-table'><caption>Every graded prediction</caption>\n"
                       "<thead><tr><th>first measured</th><th>prediction</th><th>lab/variant</th><th class='num'>"
                       "predicted</th><th class='num'>measured</th><th class='num'>measured / predicted</th>"
                       "<th>regime (you / it)</th><th>why</th><th>notes</th></tr></thead>\n<tbody>\n{}</tbody></table></div>\n",
                       rows);
    std::vector<std::string> pending;
    for (const auto& p : log.predictions) {
        bool measured = std::any_of(log.measurements.begin(), log.measurements.end(),
                                    [&](const Measurement& m) { return m.prediction_id == p.id; });
        if (!measured) pending.push_back(html_escape(fmt::format("{} {}/{}", p.id, p.lab, p.variant)));
    }
    if (!pending.empty()) out += fmt::format("<p>Not graded yet: {}.</p>\n", fmt::join(pending, ", "));
    return out + "</section>\n";
}

}  // namespace roofline
