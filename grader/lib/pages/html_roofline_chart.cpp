#include "html_roofline_chart.hpp"

#include "html_text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

namespace roofline {

namespace {

const char* kColors[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf"};
constexpr int kShapes = 5;

// One mark centred on (x, y): circle, square, triangle, diamond, cross by `shape`.
std::string mark(int shape, double x, double y, const char* color, bool hollow) {
    std::string paint = hollow ? fmt::format("fill='white' stroke='{}' stroke-width='2'", color)
                               : fmt::format("fill='{}' stroke='black' stroke-width='1'", color);
    switch (shape % kShapes) {
        case 0: return fmt::format("<circle cx='{:.1f}' cy='{:.1f}' r='5.5' {}/>", x, y, paint);
        case 1: return fmt::format("<rect x='{:.1f}' y='{:.1f}' width='10' height='10' {}/>", x - 5, y - 5, paint);
        case 2: return fmt::format("<polygon points='{:.1f},{:.1f} {:.1f},{:.1f} {:.1f},{:.1f}' {}/>", x, y - 6.5, x - 6,
                                   y + 4.5, x + 6, y + 4.5, paint);
        case 3: return fmt::format("<polygon points='{:.1f},{:.1f} {:.1f},{:.1f} {:.1f},{:.1f} {:.1f},{:.1f}' {}/>", x,
                                   y - 7, x + 6, y, x, y + 7, x - 6, y, paint);
        default:
            return fmt::format("<path d='M{:.1f},{:.1f}h4v-4h4v4h4v4h-4v4h-4v-4h-4z' {}/>", x - 6, y - 2, paint);
    }
}

std::string percent(double f) { return fmt::format("{:.1f}%", 100 * f); }

std::string figures(const ChartPoint& p) {
    const auto& m = p.placement;
    auto text = fmt::format("{}: {:.3g} FLOP/byte, {:.4g} {}, {} of the {} roof ({:.4g} {})", m.label, m.intensity,
                            m.achieved, m.unit, percent(m.fraction()), m.memory_bound() ? "memory" : "compute", m.roof,
                            m.unit);
    if (p.predicted_fraction) text += fmt::format("; predicted {}", percent(*p.predicted_fraction));
    return text;
}

}  // namespace

std::optional<double> predicted_fraction(const RoofPlacement& placement, const nlohmann::json& grade) {
    if (!grade.contains("prediction") || !grade["prediction"].is_object()) return std::nullopt;
    double ratio = grade["prediction"].value("ratio", 0.0);  // measured time / predicted time
    if (!(ratio > 0) || !std::isfinite(ratio)) return std::nullopt;
    return placement.fraction() * ratio;
}

std::string roofline_chart_html(const std::string& title, const std::vector<ChartPoint>& points) {
    const double left = 70, top = 40, zero_width = 50, gap = 14, log_width = 560, height = 320;
    const double bottom = top + height, zero_right = left + zero_width, log_left = zero_right + gap,
                 right = log_left + log_width;
    std::map<std::string, int> groups;
    for (const auto& p : points) groups.emplace(p.group, 0);
    int next = 0;
    for (auto& [name, index] : groups) index = next++;

    double x_min = 1e300, x_max = 0, y_max = 1.2;
    std::vector<double> ridges;
    for (const auto& p : points) {
        const auto& m = p.placement;
        for (double v : {m.intensity, m.ridge}) {
            if (v > 0) x_min = std::min(x_min, v), x_max = std::max(x_max, v);
        }
        if (m.ridge > 0 && std::none_of(ridges.begin(), ridges.end(), [&](double r) { return std::fabs(r / m.ridge - 1) < 0.01; }))
            ridges.push_back(m.ridge);
        y_max = std::max(y_max, 1.1 * m.fraction());
        if (p.predicted_fraction) y_max = std::max(y_max, 1.1 * *p.predicted_fraction);
    }
    if (x_max == 0) x_min = 0.1, x_max = 1000;
    y_max = std::min(std::ceil(y_max * 5) / 5, 2.0);  // 20% steps; anything beyond 200% sits on the top edge
    double x_lo = std::pow(10, std::floor(std::log10(x_min / 1.3))), x_hi = std::pow(10, std::ceil(std::log10(x_max * 1.3)));
    while (x_hi / x_lo < 99) x_lo /= 10, x_hi *= 10;
    auto X = [&](double v) {
        return log_left + (std::log10(v) - std::log10(x_lo)) / (std::log10(x_hi) - std::log10(x_lo)) * log_width;
    };
    auto Y = [&](double f) { return bottom - std::min(f, y_max) / y_max * height; };

    const double legend_top = bottom + 56;
    const int legend_rows = static_cast<int>((groups.size() + 2) / 3) + 1;
    const double total_height = legend_top + 20 * legend_rows + 10, total_width = right + 20;
    std::string s = fmt::format("<svg viewBox='0 0 {:.0f} {:.0f}' role='img' aria-label='{}'>\n", total_width,
                                total_height, html_escape(title));
    s += fmt::format("<text x='{}' y='24' font-size='15' font-weight='bold'>{}</text>\n", left, html_escape(title));
    for (double f = 0; f <= y_max + 1e-9; f += 0.2) {
        s += fmt::format("<line x1='{}' y1='{:.1f}' x2='{}' y2='{:.1f}' stroke='#ddd'/>"
                         "<text x='{}' y='{:.1f}' font-size='12' text-anchor='end'>{:.0f}%</text>\n",
                         left, Y(f), right, Y(f), left - 6, Y(f) + 4, 100 * f);
    }
    for (double d = x_lo; d <= x_hi * 1.0001; d *= 10) {
        s += fmt::format("<line x1='{0:.1f}' y1='{1}' x2='{0:.1f}' y2='{2}' stroke='#ddd'/>"
                         "<text x='{0:.1f}' y='{3}' font-size='12' text-anchor='middle'>{4:g}</text>\n",
                         X(d), top, bottom, bottom + 16, d);
    }
    s += fmt::format("<text x='{}' y='{}' font-size='12' text-anchor='middle'>0</text>\n", (left + zero_right) / 2, bottom + 16);
    s += fmt::format("<rect x='{}' y='{}' width='{}' height='{}' fill='none' stroke='#444'/>"
                     "<rect x='{}' y='{}' width='{}' height='{}' fill='none' stroke='#444'/>\n",
                     left, top, zero_width, height, log_left, top, log_width, height);
    s += fmt::format("<text x='{}' y='{}' font-size='12' text-anchor='middle'>arithmetic intensity (FLOP/byte); "
                     "0 FLOP/byte in its own column</text>\n", (left + right) / 2, bottom + 36);
    s += fmt::format("<text x='18' y='{0}' font-size='12' text-anchor='middle' transform='rotate(-90 18 {0})'>"
                     "fraction of the roof that binds it</text>\n", (top + bottom) / 2);
    s += fmt::format("<line class='roof' x1='{}' y1='{:.1f}' x2='{}' y2='{:.1f}' stroke='black' stroke-width='2'/>"
                     "<text x='{}' y='{:.1f}' font-size='11' text-anchor='end'>100% = the roof</text>\n",
                     left, Y(1), right, Y(1), right - 4, Y(1) - 5);
    for (double r : ridges) {
        s += fmt::format("<line x1='{0:.1f}' y1='{1}' x2='{0:.1f}' y2='{2}' stroke='#666' stroke-dasharray='5,4'>"
                         "<title>ridge {3:.3g} FLOP/byte</title></line>\n", X(r), top, bottom, r);
    }

    int zero_count = static_cast<int>(std::count_if(points.begin(), points.end(), [](const auto& p) { return p.placement.intensity <= 0; }));
    int zero_index = 0;
    for (const auto& p : points) {
        const auto& m = p.placement;
        int group = groups[p.group];
        const char* color = kColors[group % 8];
        double cx = m.intensity > 0 ? X(std::clamp(m.intensity, x_lo, x_hi))
                                    : left + zero_width * (++zero_index) / (zero_count + 1);
        s += "<g class='mark'><title>" + html_escape(p.group + " " + figures(p)) + "</title>";
        if (p.predicted_fraction) {
            s += fmt::format("<line x1='{0:.1f}' y1='{1:.1f}' x2='{0:.1f}' y2='{2:.1f}' stroke='{3}' stroke-dasharray='3,3'/>",
                             cx, Y(m.fraction()), Y(*p.predicted_fraction), color);
            s += mark(group, cx, Y(*p.predicted_fraction), color, true);
        }
        s += mark(group, cx, Y(m.fraction()), color, false) + "</g>\n";
    }

    // Legend: the shapes of the groups, and what filled and hollow mean.
    int i = 0;
    for (const auto& [name, index] : groups) {
        double lx = left + 240 * (i % 3), ly = legend_top + 20 * (i / 3);
        s += mark(index, lx, ly - 4, kColors[index % 8], false);
        s += fmt::format("<text x='{:.0f}' y='{:.0f}' font-size='12'>{}</text>\n", lx + 12, ly,
                         html_escape(name.size() > 32 ? name.substr(0, 31) + "..." : name));
        ++i;
    }
    double ly = legend_top + 20 * (legend_rows - 1);
    s += fmt::format("<text x='{}' y='{:.0f}' font-size='12'>filled: measured; hollow, joined by a dashed line: "
                     "where the prediction put it</text>\n</svg>\n", left, ly);
    return "<figure>" + s + "<figcaption>" + html_escape(title) +
           ". Hover a mark for its figures; the table below holds the same numbers.</figcaption></figure>\n";
}

std::string roofline_table_html(const std::string& caption, const std::vector<ChartPoint>& points) {
    std::string rows;
    for (const auto& p : points) {
        const auto& m = p.placement;
        rows += fmt::format(
            "<tr><td>{}</td><td>{}</td><td class='num'>{:.3g}</td><td class='num'>{:.4g} {}</td>"
            "<td class='num'>{:.4g} {} ({})</td><td class='num'>{}</td><td class='num'>{}</td></tr>\n",
            html_escape(p.group), html_escape(m.label), m.intensity, m.achieved, html_escape(m.unit), m.roof,
            html_escape(m.unit), m.memory_bound() ? "memory" : "compute", percent(m.fraction()),
            p.predicted_fraction ? percent(*p.predicted_fraction) : "-");
    }
    return fmt::format("<div class='table-wrap'><table><caption>{}</caption>\n<thead><tr><th>group</th><th>kernel</th>"
                       "<th class='num'>FLOP/byte</th><th class='num'>achieved</th><th class='num'>roof</th>"
                       "<th class='num'>fraction of the roof</th><th class='num'>predicted</th></tr></thead>\n"
                       "<tbody>\n{}</tbody></table></div>\n",
                       html_escape(caption), rows);
}

}  // namespace roofline
