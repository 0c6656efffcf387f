#include "svg.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace roofline {

namespace {

constexpr double kWidth = 720, kHeight = 480, kLeft = 80, kRight = 200, kTop = 40, kBottom = 60;

// Maps log10 of a value in [lo, hi] onto a pixel range.
struct LogAxis {
    double lo, hi, from, to;
    double operator()(double v) const {
        double t = (std::log10(v) - std::log10(lo)) / (std::log10(hi) - std::log10(lo));
        return from + t * (to - from);
    }
};

std::string escape(const std::string& text) {
    std::string out;
    for (char c : text) {
        if (c == '<') out += "&lt;";
        else if (c == '>') out += "&gt;";
        else if (c == '&') out += "&amp;";
        else out += c;
    }
    return out;
}

std::string frame(const std::string& title, const LogAxis& x, const LogAxis& y, const std::string& x_label,
                  const std::string& y_label) {
    std::string s = fmt::format(
        "<svg xmlns='http://www.w3.org/2000/svg' width='{}' height='{}' font-family='sans-serif' font-size='12'>\n"
        "<rect width='100%' height='100%' fill='white'/>\n<text x='{}' y='24' font-size='15'>{}</text>\n",
        kWidth, kHeight, kLeft, escape(title));
    for (double d = std::pow(10, std::floor(std::log10(x.lo))); d <= x.hi * 1.0001; d *= 10) {
        if (d < x.lo) continue;
        s += fmt::format("<line x1='{0:.1f}' y1='{1}' x2='{0:.1f}' y2='{2}' stroke='#ddd'/>"
                         "<text x='{0:.1f}' y='{3}' text-anchor='middle'>{4:g}</text>\n",
                         x(d), kTop, kHeight - kBottom, kHeight - kBottom + 16, d);
    }
    for (double d = std::pow(10, std::floor(std::log10(y.lo))); d <= y.hi * 1.0001; d *= 10) {
        if (d < y.lo) continue;
        s += fmt::format("<line x1='{1}' y1='{0:.1f}' x2='{2}' y2='{0:.1f}' stroke='#ddd'/>"
                         "<text x='{3}' y='{0:.1f}' text-anchor='end' dy='4'>{4:g}</text>\n",
                         y(d), kLeft, kWidth - kRight, kLeft - 6, d);
    }
    s += fmt::format("<rect x='{}' y='{}' width='{}' height='{}' fill='none' stroke='#444'/>\n", kLeft, kTop,
                     kWidth - kLeft - kRight, kHeight - kTop - kBottom);
    s += fmt::format("<text x='{}' y='{}' text-anchor='middle'>{}</text>\n", (kLeft + kWidth - kRight) / 2,
                     kHeight - 20, escape(x_label));
    s += fmt::format("<text transform='translate(20,{}) rotate(-90)' text-anchor='middle'>{}</text>\n",
                     (kTop + kHeight - kBottom) / 2, escape(y_label));
    return s;
}

const char* kColors[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf"};

}  // namespace

std::string roofline_svg(const std::string& title, const Ceiling& ceiling, const std::vector<RooflineMark>& marks) {
    double ridge = ceiling.peak_tflops / ceiling.bandwidth_tbs;
    double x_lo = 0.01, x_hi = std::max(1e4, ridge * 10);
    LogAxis x{x_lo, x_hi, kLeft, kWidth - kRight};
    double y_hi = std::pow(10, std::ceil(std::log10(ceiling.peak_tflops * 1.5)));
    double y_lo = std::pow(10, std::floor(std::log10(ceiling.bandwidth_tbs * x_lo * 0.5)));
    LogAxis y{y_lo, y_hi, kHeight - kBottom, kTop};
    std::string s = frame(title, x, y, "arithmetic intensity (FLOP/byte)", "TFLOP/s");
    s += fmt::format("<polyline fill='none' stroke='black' stroke-width='2' points='{:.1f},{:.1f} {:.1f},{:.1f} {:.1f},{:.1f}'/>\n",
                     x(x_lo), y(ceiling.bandwidth_tbs * x_lo), x(ridge), y(ceiling.peak_tflops), x(x_hi),
                     y(ceiling.peak_tflops));
    s += fmt::format("<text x='{:.1f}' y='{:.1f}' dy='-6'>{:g} TFLOP/s, ridge {:.1f} FLOP/B, {:g} TB/s</text>\n",
                     x(ridge), y(ceiling.peak_tflops), ceiling.peak_tflops, ridge, ceiling.bandwidth_tbs);
    int i = 0;
    for (const auto& m : marks) {
        double xi = m.intensity > 0 ? m.intensity : x_lo;
        double yi = m.intensity > 0 ? m.achieved_tflops : m.achieved_tbs * x_lo;
        const char* color = kColors[i % 8];
        s += fmt::format("<circle cx='{:.1f}' cy='{:.1f}' r='5' fill='{}'/>\n", x(std::clamp(xi, x_lo, x_hi)),
                         y(std::clamp(yi, y_lo, y_hi)), color);
        std::string label = m.intensity > 0 ? fmt::format("{} ({:.3g} TFLOP/s)", m.label, m.achieved_tflops)
                                            : fmt::format("{} ({:.3g} TB/s, 0 FLOP/B: left edge)", m.label, m.achieved_tbs);
        s += fmt::format("<circle cx='{}' cy='{}' r='5' fill='{}'/><text x='{}' y='{}' dy='4'>{}</text>\n",
                         kWidth - kRight + 14, kTop + 14 + 18 * i, color, kWidth - kRight + 24, kTop + 14 + 18 * i,
                         escape(label));
        ++i;
    }
    return s + "</svg>\n";
}

std::string prediction_scatter_svg(const std::string& title, const std::vector<ScatterPoint>& points) {
    double lo = 1e9, hi = 0;
    for (const auto& p : points) {
        lo = std::min({lo, p.predicted_s, p.measured_s});
        hi = std::max({hi, p.predicted_s, p.measured_s});
    }
    if (points.empty()) lo = 1e-6, hi = 1e-3;
    lo = std::pow(10, std::floor(std::log10(lo * 1e6 / 2)));
    hi = std::pow(10, std::ceil(std::log10(hi * 1e6 * 2)));
    LogAxis x{lo, hi, kLeft, kWidth - kRight};
    LogAxis y{lo, hi, kHeight - kBottom, kTop};
    std::string s = frame(title, x, y, "predicted time (us)", "measured time (us)");
    s += fmt::format("<polygon fill='#e8f4e8' points='{:.1f},{:.1f} {:.1f},{:.1f} {:.1f},{:.1f} {:.1f},{:.1f}'/>\n",
                     x(lo), y(lo * 1.5), x(hi / 1.5), y(hi), x(hi), y(hi / 1.5), x(lo * 1.5), y(lo));
    s += fmt::format("<line x1='{:.1f}' y1='{:.1f}' x2='{:.1f}' y2='{:.1f}' stroke='black'/>\n", x(lo), y(lo), x(hi), y(hi));
    s += fmt::format("<text x='{}' y='{}'>green band: within 1.5x</text>\n", kWidth - kRight + 14, kTop + 14);
    int i = 0;
    for (const auto& p : points) {
        const char* color = kColors[i % 8];
        s += fmt::format("<circle cx='{:.1f}' cy='{:.1f}' r='5' fill='{}'><title>{}</title></circle>\n",
                         x(p.predicted_s * 1e6), y(p.measured_s * 1e6), color, escape(p.label));
        if (i < 20) {
            s += fmt::format("<circle cx='{}' cy='{}' r='4' fill='{}'/><text x='{}' y='{}' dy='4' font-size='10'>{}</text>\n",
                             kWidth - kRight + 14, kTop + 34 + 16 * i, color, kWidth - kRight + 22, kTop + 34 + 16 * i,
                             escape(p.label));
        }
        ++i;
    }
    return s + "</svg>\n";
}

}  // namespace roofline
