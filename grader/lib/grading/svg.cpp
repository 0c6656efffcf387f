#include "svg.hpp"

#include "svg_canvas.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace roofline {

namespace {

constexpr double kFont = 12, kSmallFont = 10, kTitleFont = 15;

// Maps log10 of a value in [lo, hi] onto a pixel range.
struct LogAxis {
    double lo, hi, from, to;
    double operator()(double v) const {
        double t = (std::log10(v) - std::log10(lo)) / (std::log10(hi) - std::log10(lo));
        return from + t * (to - from);
    }
};

struct LinearAxis {
    double lo, hi, from, to;
    double operator()(double v) const { return from + (v - lo) / (hi - lo) * (to - from); }
};

const char* kColors[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf"};

// Whole decades around [lo, hi], at least two of them.
std::pair<double, double> decades_around(double lo, double hi) {
    double a = std::pow(10, std::floor(std::log10(lo)));
    double b = std::pow(10, std::ceil(std::log10(hi)));
    while (b / a < 99) a /= 10, b *= 10;
    return {a, b};
}

void decade_ticks_x(SvgCanvas& c, const LogAxis& x, double top, double bottom) {
    for (double d = x.lo; d <= x.hi * 1.0001; d *= 10) {
        c.element(fmt::format("<line x1='{0:.1f}' y1='{1}' x2='{0:.1f}' y2='{2}' stroke='#ddd'/>\n", x(d), top, bottom),
                  x(d), bottom);
        c.text(x(d), bottom + 16, fmt::format("{:g}", d), kFont, "middle");
    }
}

std::string percent(double fraction) { return fmt::format("{:.0f}%", 100 * fraction); }

std::string mark_details(const RoofPlacement& m) {
    return fmt::format("{:.3g} FLOP/B, {:.3g} {} = {:.1f}% of the {} roof ({:.3g} {})", m.intensity, m.achieved, m.unit,
                       100 * m.fraction(), m.memory_bound() ? "memory" : "compute", m.roof, m.unit);
}

}  // namespace

std::string roofline_svg(const std::string& title, const std::vector<RoofPlacement>& marks,
                         const std::vector<RoofReference>& references) {
    // Plot area: a column for 0 FLOP/byte, a gap, then the log axis.
    const double left = 72, top = 44, zero_width = 48, gap = 14, log_width = 400, height = 340;
    const double bottom = top + height, zero_right = left + zero_width, log_left = zero_right + gap,
                 right = log_left + log_width;

    double x_min = 1e300, x_max = 0, y_max = 1.2;
    std::vector<double> ridges;
    for (const auto& m : marks) {
        if (m.intensity > 0) x_min = std::min(x_min, m.intensity), x_max = std::max(x_max, m.intensity);
        if (m.ridge > 0) {
            x_min = std::min(x_min, m.ridge), x_max = std::max(x_max, m.ridge);
            bool seen = std::any_of(ridges.begin(), ridges.end(), [&](double r) { return std::fabs(r / m.ridge - 1) < 0.01; });
            if (!seen) ridges.push_back(m.ridge);
        }
        y_max = std::max(y_max, m.fraction() * 1.1);
    }
    for (const auto& r : references) y_max = std::max(y_max, r.fraction * 1.1);
    if (x_max == 0) x_min = 0.1, x_max = 1000;
    y_max = std::min(std::ceil(y_max * 5) / 5, 2.0);  // 20% steps; a point beyond 200% is drawn at the top
    auto [x_lo, x_hi] = decades_around(x_min / 1.3, x_max * 1.3);
    LogAxis x{x_lo, x_hi, log_left, right};
    LinearAxis y{0, y_max, bottom, top};

    SvgCanvas c;
    c.text(left, 26, title, kTitleFont);
    for (double f = 0; f <= y_max + 1e-9; f += 0.2) {
        c.element(fmt::format("<line x1='{}' y1='{:.1f}' x2='{}' y2='{:.1f}' stroke='#ddd'/>\n", left, y(f), right, y(f)),
                  right, y(f));
        c.text(left - 6, y(f) + 4, percent(f), kFont, "end");
    }
    decade_ticks_x(c, x, top, bottom);
    c.text((left + zero_right) / 2, bottom + 16, "0", kFont, "middle");
    c.element(fmt::format("<rect class='zero-column' x='{}' y='{}' width='{}' height='{}' fill='none' stroke='#444'/>\n"
                          "<rect class='plot' x='{}' y='{}' width='{}' height='{}' fill='none' stroke='#444'/>\n",
                          left, top, zero_width, height, log_left, top, log_width, height),
              right, bottom);
    c.text((left + right) / 2, bottom + 36, "arithmetic intensity (FLOP/byte)", kFont, "middle");
    c.text_upward(22, (top + bottom) / 2, "fraction of the roof that binds the kernel", kFont, "middle");

    // The roof: 100% across the whole plot, whichever roof binds.
    c.element(fmt::format("<line class='roof' x1='{}' y1='{:.1f}' x2='{}' y2='{:.1f}' stroke='black' stroke-width='2'/>\n",
                          left, y(1), right, y(1)),
              right, y(1));
    c.text(right - 4, y(1) - 5, "100% = the roof", kSmallFont, "end");
    for (double r : ridges) {
        auto name = fmt::format("ridge {:.3g} FLOP/B", r);
        c.element(fmt::format("<line class='ridge' x1='{0:.2f}' y1='{1}' x2='{0:.2f}' y2='{2}' stroke='#666' "
                              "stroke-dasharray='5,4'><title>{3}</title></line>\n",
                              x(r), top, bottom, name),
                  x(r), bottom);
        c.text_upward(x(r) - 4, bottom - 6, name, kSmallFont);
    }
    double memory_end = ridges.empty() ? right : x(*std::min_element(ridges.begin(), ridges.end()));
    for (const auto& r : references) {
        double yr = y(std::min(r.fraction, y_max));
        c.element(fmt::format("<line class='reference' x1='{}' y1='{:.1f}' x2='{:.1f}' y2='{:.1f}' stroke='#888' "
                              "stroke-dasharray='2,3'/>\n",
                              left, yr, memory_end, yr),
                  memory_end, yr);
        c.text(left + 4, yr - 4, fmt::format("{} ({} of the memory roof)", r.label, percent(r.fraction)), kSmallFont, "start",
               "fill='#555'");
    }

    // The points, numbered; zero-FLOP ones spread across their column.
    int zero_count = static_cast<int>(std::count_if(marks.begin(), marks.end(), [](const auto& m) { return m.intensity <= 0; }));
    int zero_index = 0;
    const double legend_x = right + 22;
    for (std::size_t i = 0; i < marks.size(); ++i) {
        const auto& m = marks[i];
        const char* color = kColors[i % 8];
        double cx = m.intensity > 0 ? x(std::clamp(m.intensity, x_lo, x_hi))
                                    : left + zero_width * (++zero_index) / (zero_count + 1);
        double cy = y(std::clamp(m.fraction(), 0.0, y_max));
        c.element(fmt::format("<circle class='mark' cx='{:.2f}' cy='{:.2f}' r='5' fill='{}'><title>{}</title></circle>\n",
                              cx, cy, color, svg_escape(m.label)),
                  cx + 5, cy + 5);
        c.text(cx + 6, cy - 5, std::to_string(i + 1), kSmallFont);
        double row = top + 8 + 32 * i;
        c.element(fmt::format("<circle cx='{}' cy='{:.1f}' r='5' fill='{}'/>\n", legend_x, row - 4, color), legend_x + 5, row);
        c.text(legend_x + 10, row, fmt::format("{} {}", i + 1, m.label), kFont);
        c.text(legend_x + 10, row + 14, mark_details(m), kSmallFont, "start", "fill='#444'");
    }

    // What 100% means: each roof the points are measured against, with its origin.
    double line = bottom + 58;
    c.text(left, line, "each point: its achieved rate over the roof that binds it (memory left of its ridge, compute right of it)",
           kSmallFont);
    std::vector<std::string> roofs;
    for (const auto& m : marks) {
        auto text = fmt::format("{} roof {:.4g} {}{}{}", m.memory_bound() ? "memory" : "compute", m.roof, m.unit,
                                m.roof_origin.empty() ? "" : ": ", m.roof_origin);
        if (std::find(roofs.begin(), roofs.end(), text) == roofs.end()) roofs.push_back(text);
    }
    for (const auto& r : roofs) c.text(left, line += 14, r, kSmallFont);
    if (marks.empty()) c.text(left, line += 14, "no correct graded variant yet", kSmallFont);
    return c.finish(right + 20, bottom + 60);
}

std::string prediction_scatter_svg(const std::string& title, const std::vector<ScatterPoint>& points) {
    constexpr std::size_t kLegendRows = 30;
    const double left = 80, top = 44, width = 440, height = 380, bottom = top + height, right = left + width;
    double lo = 1e300, hi = 0;
    for (const auto& p : points) {
        lo = std::min({lo, p.predicted_s, p.measured_s});
        hi = std::max({hi, p.predicted_s, p.measured_s});
        for (double t : p.regraded_s) lo = std::min(lo, t), hi = std::max(hi, t);
    }
    if (points.empty()) lo = 1e-6, hi = 1e-3;
    auto [us_lo, us_hi] = decades_around(lo * 1e6 / 2, hi * 1e6 * 2);
    LogAxis x{us_lo, us_hi, left, right};
    LogAxis y{us_lo, us_hi, bottom, top};

    SvgCanvas c;
    c.text(left, 26, title, kTitleFont);
    decade_ticks_x(c, x, top, bottom);
    for (double d = us_lo; d <= us_hi * 1.0001; d *= 10) {
        c.element(fmt::format("<line x1='{}' y1='{:.1f}' x2='{}' y2='{:.1f}' stroke='#ddd'/>\n", left, y(d), right, y(d)),
                  right, y(d));
        c.text(left - 6, y(d) + 4, fmt::format("{:g}", d), kFont, "end");
    }
    c.element(fmt::format("<polygon fill='#e8f4e8' points='{:.1f},{:.1f} {:.1f},{:.1f} {:.1f},{:.1f} {:.1f},{:.1f}'/>\n",
                          x(us_lo), y(us_lo * 1.5), x(us_hi / 1.5), y(us_hi), x(us_hi), y(us_hi / 1.5), x(us_lo * 1.5),
                          y(us_lo)),
              right, bottom);
    c.element(fmt::format("<line x1='{:.1f}' y1='{:.1f}' x2='{:.1f}' y2='{:.1f}' stroke='black'/>\n"
                          "<rect x='{}' y='{}' width='{}' height='{}' fill='none' stroke='#444'/>\n",
                          x(us_lo), y(us_lo), x(us_hi), y(us_hi), left, top, width, height),
              right, bottom);
    c.text((left + right) / 2, bottom + 36, "predicted time (us)", kFont, "middle");
    c.text_upward(22, (top + bottom) / 2, "measured time (us)", kFont, "middle");

    const double legend_x = right + 22;
    c.text(legend_x - 8, top + 4, "green band: within 1.5x; one colour per prediction;", kSmallFont);
    c.text(legend_x - 8, top + 18, "a ring: the same prediction graded again (not counted)", kSmallFont);
    for (std::size_t i = 0; i < points.size(); ++i) {
        const auto& p = points[i];
        const char* color = kColors[i % 8];
        for (double t : p.regraded_s) {
            c.element(fmt::format("<circle class='regrade' cx='{:.2f}' cy='{:.2f}' r='7' fill='none' stroke='{}' "
                                  "stroke-width='1.5'><title>{} (graded again)</title></circle>\n",
                                  x(p.predicted_s * 1e6), y(t * 1e6), color, svg_escape(p.label)),
                      x(p.predicted_s * 1e6) + 8, y(t * 1e6) + 8);
        }
        c.element(fmt::format("<circle class='mark' cx='{:.2f}' cy='{:.2f}' r='5' fill='{}'><title>{}</title></circle>\n",
                              x(p.predicted_s * 1e6), y(p.measured_s * 1e6), color, svg_escape(p.label)),
                  x(p.predicted_s * 1e6) + 5, y(p.measured_s * 1e6) + 5);
        if (i > kLegendRows) continue;
        double row = top + 40 + 16 * i;
        if (i == kLegendRows) {
            c.text(legend_x - 8, row, fmt::format("... and {} more: `roofline log` lists them all", points.size() - i),
                   kSmallFont);
            continue;
        }
        std::string label = p.regraded_s.empty() ? p.label
                                                 : fmt::format("{} (graded {}x; the first counts)", p.label,
                                                               p.regraded_s.size() + 1);
        c.element(fmt::format("<circle cx='{}' cy='{:.1f}' r='4' fill='{}'/>\n", legend_x, row - 4, color), legend_x + 4,
                  row);
        c.text(legend_x + 9, row, label, kSmallFont);
    }
    return c.finish(right + 20, bottom + 50);
}

}  // namespace roofline
