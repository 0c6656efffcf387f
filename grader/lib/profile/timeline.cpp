#include "timeline.hpp"

#include "input_error.hpp"
#include "svg_canvas.hpp"

#include <cxxabi.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <memory>

namespace roofline {

Timeline build_timeline(std::vector<KernelRecord> records, double began_ns) {
    std::stable_sort(records.begin(), records.end(),
                     [](const KernelRecord& a, const KernelRecord& b) { return a.start_ns < b.start_ns; });
    Timeline t;
    if (records.empty()) return t;
    // A host call stamped after the first kernel began (clocks that disagree) is ignored.
    const double origin = began_ns > 0 && began_ns <= records.front().start_ns ? began_ns : records.front().start_ns;
    double covered_to = origin;  // the latest end so far: the GPU was busy up to here
    for (const auto& r : records) {
        TimelineRow row;
        row.name = kernel_display_name(r.name);
        row.start_us = (r.start_ns - origin) / 1e3;
        row.duration_us = (r.end_ns - r.start_ns) / 1e3;
        row.gap_before_us = std::max(0.0, r.start_ns - covered_to) / 1e3;
        // Busy time counts the part of this kernel past what earlier kernels already covered.
        t.busy_us += std::max(0.0, r.end_ns - std::max(r.start_ns, covered_to)) / 1e3;
        covered_to = std::max(covered_to, r.end_ns);
        t.rows.push_back(row);
    }
    t.step_us = (covered_to - origin) / 1e3;
    t.gap_us = std::max(0.0, t.step_us - t.busy_us);
    return t;
}

std::vector<KernelRecord> timeline_records(const protocol::Timeline& timeline, const std::string& source) {
    if (!timeline.watched) {
        throw InputError(fmt::format("{}: CUPTI recorded nothing ({}); check that CUPTI is installed with the CUDA "
                                     "Toolkit and that no other profiler (nsys, ncu) is attached",
                                     source, timeline.error.empty() ? "no reason given" : timeline.error));
    }
    std::vector<KernelRecord> records;
    for (std::size_t i = 0; i < timeline.kernels.size(); ++i) {
        const auto& k = timeline.kernels[i];
        if (k.end_ns < k.start_ns)
            throw InputError(fmt::format("{}: timeline.kernels[{}] ({}) ends before it starts", source, i, k.name));
        records.push_back({k.name, double(k.start_ns), double(k.end_ns)});
    }
    return records;
}

std::string kernel_display_name(const std::string& mangled) {
    // Only function names: __cxa_demangle also reads a bare "a" as the type signed char.
    if (mangled.rfind("_Z", 0) != 0) return mangled;
    int status = 0;
    std::unique_ptr<char, void (*)(void*)> text(abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status),
                                               std::free);
    if (status != 0 || !text) return mangled;
    std::string name = text.get();
    // Drop the parameter list: the last top-level "(...)" (template arguments may hold parentheses).
    if (!name.empty() && name.back() == ')') {
        int depth = 0;
        for (std::size_t i = name.size(); i-- > 0;) {
            if (name[i] == ')') ++depth;
            else if (name[i] == '(' && --depth == 0) {
                name.erase(i);
                break;
            }
        }
    }
    if (name.rfind("void ", 0) == 0) name.erase(0, 5);
    return name;
}

namespace {

std::string us(double value) { return fmt::format("{:.2f} us", value); }

}  // namespace

std::string timeline_text(const Timeline& t) {
    constexpr std::size_t kShown = 40;  // rows printed before the rest is summarized
    std::string out = fmt::format("{:>4} {:>12} {:>12} {:>12}  {}\n", "#", "start", "duration", "gap before", "kernel");
    for (std::size_t i = 0; i < t.rows.size(); ++i) {
        if (i == kShown - 5 && t.rows.size() > kShown) {
            out += fmt::format("{:>4} ... {} more kernels ...\n", "", t.rows.size() - kShown);
            i = t.rows.size() - 5;
        }
        const auto& r = t.rows[i];
        out += fmt::format("{:>4} {:>12} {:>12} {:>12}  {}\n", i + 1, us(r.start_us), us(r.duration_us),
                           us(r.gap_before_us), r.name);
    }
    out += fmt::format("\n{} kernels; step {}: kernels running {}, GPU idle between them {} ({:.1f}% of the step)\n",
                       t.rows.size(), us(t.step_us), us(t.busy_us), us(t.gap_us), 100 * t.gap_share());
    return out;
}

std::string timeline_svg(const Timeline& t, const std::string& title) {
    constexpr double kFont = 12, kSmall = 10, left = 16, top = 48, width = 760, lane_height = 22;
    SvgCanvas c;
    c.text(left, 22, title, 15, "start", "font-weight='bold'");
    c.text(left, 38,
           fmt::format("{} kernels in {}: GPU busy {}, idle between kernels {} ({:.1f}% of the step)", t.rows.size(),
                       us(t.step_us), us(t.busy_us), us(t.gap_us), 100 * t.gap_share()),
           kSmall);
    // One lane per kernel name, in order of first launch.
    std::vector<std::string> lanes;
    std::map<std::string, std::size_t> lane_of;
    for (const auto& r : t.rows) {
        if (lane_of.emplace(r.name, lanes.size()).second) lanes.push_back(r.name);
    }
    const double span = t.step_us > 0 ? t.step_us : 1;
    auto x = [&](double time_us) { return left + time_us / span * width; };
    const double gap_row = top + lanes.size() * lane_height + 6;
    // The idle band: every gap, shaded where the GPU waited.
    c.element(fmt::format("<rect x='{:.1f}' y='{:.1f}' width='{:.1f}' height='{}' fill='#f4f4f4'/>\n", left, gap_row,
                          width, lane_height - 6),
              left + width, gap_row + lane_height);
    for (const auto& r : t.rows) {
        if (r.gap_before_us <= 0) continue;
        const double x0 = x(r.start_us - r.gap_before_us);
        c.element(fmt::format("<rect x='{:.2f}' y='{:.1f}' width='{:.2f}' height='{}' fill='#d62728'><title>idle "
                              "{}</title></rect>\n",
                              x0, gap_row, std::max(0.5, x(r.start_us) - x0), lane_height - 6, us(r.gap_before_us)),
                  left + width, gap_row + lane_height);
    }
    c.text(left + width + 8, gap_row + 12, "GPU idle (host gap)", kSmall);
    const char* colors[] = {"#1f77b4", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#17becf"};
    for (std::size_t i = 0; i < t.rows.size(); ++i) {
        const auto& r = t.rows[i];
        const std::size_t lane = lane_of[r.name];
        const double y = top + lane * lane_height;
        c.element(fmt::format("<rect x='{:.2f}' y='{:.1f}' width='{:.2f}' height='{}' fill='{}'><title>#{} {}: start "
                              "{}, {}, gap before {}</title></rect>\n",
                              x(r.start_us), y, std::max(0.5, x(r.start_us + r.duration_us) - x(r.start_us)),
                              lane_height - 6, colors[lane % 6], i + 1, svg_escape(r.name), us(r.start_us),
                              us(r.duration_us), us(r.gap_before_us)),
                  left + width, y + lane_height);
    }
    for (std::size_t lane = 0; lane < lanes.size(); ++lane)
        c.text(left + width + 8, top + lane * lane_height + 12, lanes[lane], kSmall);
    // Time axis: five ticks.
    const double axis = gap_row + lane_height + 4;
    c.element(fmt::format("<line x1='{}' y1='{:.1f}' x2='{}' y2='{:.1f}' stroke='#444'/>\n", left, axis, left + width,
                          axis),
              left + width, axis);
    for (int i = 0; i <= 4; ++i) {
        const double at = span * i / 4;
        c.element(fmt::format("<line x1='{0:.1f}' y1='{1:.1f}' x2='{0:.1f}' y2='{2:.1f}' stroke='#444'/>\n", x(at), axis,
                              axis + 4),
                  x(at), axis + 4);
        c.text(x(at), axis + 16, us(at), kFont, i == 0 ? "start" : i == 4 ? "end" : "middle");
    }
    return c.finish(left + width + 16, axis + 24);
}

}  // namespace roofline
