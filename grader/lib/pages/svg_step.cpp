#include "svg_step.hpp"

#include "roof_placement.hpp"
#include "svg.hpp"
#include "svg_canvas.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace roofline {

const char* regime_colour(const std::string& regime) {
    if (regime == "compute") return "#1f77b4";
    if (regime == "memory") return "#2ca02c";
    if (regime == "overhead") return "#ff7f0e";
    return "#7f7f7f";
}

namespace {

std::string ms(double seconds) { return fmt::format("{:.3f} ms", seconds * 1e3); }
// A span's length: microseconds under a tenth of a millisecond (one launch of a small op is a few).
std::string length(double seconds) { return seconds < 1e-4 ? fmt::format("{:.1f} us", seconds * 1e6) : ms(seconds); }

const IncidentOp* op_named(const IncidentReport& r, const std::string& name) {
    for (const auto& op : r.ops)
        if (op.name == name) return &op;
    return nullptr;
}

}  // namespace

std::string step_timeline_svg(const IncidentReport& r) {
    constexpr double kFont = 12, kSmall = 10, left = 16, width = 760, bar_top = 64, bar_height = 30;
    SvgCanvas c;
    c.text(left, 22, fmt::format("{}: the decode step by op on {}", r.incident, r.device), 15, "start",
           "font-weight='bold'");
    c.text(left, 40,
           fmt::format("one eager step with an event {} each op, {}; the timed step {} ({:.1f} tokens/s), "
                       "reading {}",
                       r.has_events ? "before and after" : "before", ms(r.instrumented_step_s), ms(r.timing.step_s),
                       r.tokens_per_s, r.reading.regime),
           kSmall);
    double span = r.instrumented_step_s;
    for (const auto& s : r.spans) span = std::max(span, s.end_s);
    auto x = [&](double t) { return left + t / span * width; };
    // With events a span is one launch of an op, often under a pixel: no outlines (they would paint the
    // bar white and grey), and each title gives the span's times and then the op's, all its spans summed.
    const std::string op_outline = r.has_events ? "" : " stroke='white' stroke-width='0.5'";
    const std::string gap_outline = r.has_events ? "" : " stroke='#555' stroke-dasharray='2,2'";
    for (const auto& s : r.spans) {
        const double x0 = x(s.start_s), w = std::max(0.5, x(s.end_s) - x0);
        if (s.gap()) {
            c.element(fmt::format("<rect class='gap' x='{:.2f}' y='{}' width='{:.2f}' height='{}' fill='{}'{}><title>gap "
                                  "{} to {}: no op ran ({})</title></rect>\n",
                                  x0, bar_top, w, bar_height, kGapColour, gap_outline, ms(s.start_s), ms(s.end_s),
                                  length(s.end_s - s.start_s)),
                      x0 + w, bar_top + bar_height);
            continue;
        }
        const auto* op = op_named(r, s.name);
        const std::string regime = op ? op->regime : "";
        const std::string whole = r.has_events ? fmt::format("; {} in all its spans, ", ms(op ? op->seconds : 0)) : ", ";
        c.element(fmt::format("<rect class='op' data-op='{}' data-regime='{}' x='{:.2f}' y='{}' width='{:.2f}' "
                              "height='{}' fill='{}'{}><title>{}: {} to {} ({}){}its floor {}, {}</title></rect>\n",
                              svg_escape(s.name), regime, x0, bar_top, w, bar_height, regime_colour(regime), op_outline,
                              svg_escape(s.name), ms(s.start_s), ms(s.end_s), length(s.end_s - s.start_s), whole,
                              ms(op ? op->floor_s : 0), regime),
                  x0 + w, bar_top + bar_height);
        // A name inside its bar where it fits; the <title> carries it otherwise.
        if (text_width(s.name, kSmall) + 4 < w) c.text(x0 + w / 2, bar_top + bar_height / 2 + 4, s.name, kSmall, "middle");
    }
    // Time axis: five ticks.
    const double axis = bar_top + bar_height + 6;
    c.element(fmt::format("<line x1='{}' y1='{}' x2='{}' y2='{}' stroke='#444'/>\n", left, axis, left + width, axis),
              left + width, axis);
    for (int i = 0; i <= 4; ++i) {
        const double at = span * i / 4;
        c.element(fmt::format("<line x1='{0:.1f}' y1='{1}' x2='{0:.1f}' y2='{2}' stroke='#444'/>\n", x(at), axis, axis + 4),
                  x(at), axis + 4);
        c.text(x(at), axis + 16, ms(at), kFont, i == 0 ? "start" : i == 4 ? "end" : "middle");
    }
    // Legend: the three regimes and the gap.
    double lx = left;
    const double ly = axis + 34;
    for (const std::string regime : {"compute", "memory", "overhead", "gap"}) {
        const char* colour = regime == "gap" ? kGapColour : regime_colour(regime);
        c.element(fmt::format("<rect class='legend' x='{}' y='{}' width='12' height='12' fill='{}'/>\n", lx, ly - 10, colour),
                  lx + 12, ly + 2);
        std::string label = regime == "gap" ? "gap (no op running)" : regime;
        c.text(lx + 16, ly, label, kSmall);
        lx += 16 + text_width(label, kSmall) + 18;
    }
    c.text(left, ly + 18,
           fmt::format("host: a lone step enqueued in {} against {} on the GPU; {} launches a step", ms(r.timing.host_enqueue_s),
                       ms(r.timing.single_step_s), r.timing.launches),
           kSmall);
    if (!r.has_events) return c.finish(left + width + 16, ly + 24);
    // With events, hundreds of spans may be under a pixel each: every one is drawn (its <title> has
    // its times), and the total says what the grey adds up to.
    c.text(left, ly + 34,
           fmt::format("gaps: {} of the instrumented step ({:.1f}%) ran no op, outside its {} spans", ms(r.gap_s),
                       100 * r.gap_s / r.instrumented_step_s, r.event_count),
           kSmall, "start", "class='gap-total'");
    return c.finish(left + width + 16, ly + 40);
}

std::string step_roofline_svg(const IncidentReport& r) {
    const double ridge = r.tensor_flops_per_s / r.copy_bytes_per_s;
    auto place = [&](const std::string& label, double seconds, double bytes, double flops) {
        RoofPlacement p;
        p.label = label;
        p.intensity = bytes > 0 ? flops / bytes : 0;
        p.ridge = ridge;
        if (p.intensity < ridge) {
            p.unit = "TB/s";
            p.achieved = bytes / seconds / 1e12;
            p.roof = r.copy_bytes_per_s / 1e12;
        } else {
            p.unit = "TFLOP/s";
            p.achieved = flops / seconds / 1e12;
            p.roof = r.tensor_flops_per_s / 1e12;
        }
        return p;
    };
    std::vector<RoofPlacement> marks;
    for (const auto& op : r.ops) {
        // An op the model counts no bytes for (the residual add, SwiGLU: activations are left out) has no place.
        if (op.seconds <= 0 || (op.bytes <= 0 && op.flops <= 0)) continue;
        marks.push_back(place(fmt::format("{} ({})", op.name, op.regime), op.seconds, op.bytes, op.flops));
    }
    marks.push_back(place(fmt::format("the whole step ({})", r.reading.regime), r.timing.step_s, r.floor.bytes, r.floor.flops));
    return roofline_svg(fmt::format("{} on {}: each op and the step against its roof", r.incident, r.device), marks);
}

}  // namespace roofline
