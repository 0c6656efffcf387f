#include "svg_overlap_timeline.hpp"

#include "input_error.hpp"
#include "svg_canvas.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <sstream>
#include <vector>

namespace roofline {

namespace {

constexpr double kFont = 12, kSmallFont = 10, kTitleFont = 15, kLine = 17;
constexpr double kSlicePx = 64;  // one steady-state K slice
constexpr double kLabelWidth = 190, kLaneHeight = 22, kLaneGap = 16;
constexpr const char* kInk = "#333";

const char* fill_of(OverlapEvent event) {
    switch (event) {
        case OverlapEvent::wait_empty:
        case OverlapEvent::wait_full: return "#d9d9d9";
        case OverlapEvent::mma_wait: return "#fdd0a2";
        case OverlapEvent::issue: return "#6baed6";
        case OverlapEvent::mma_issue: return "#f16913";
        case OverlapEvent::epilogue: return "#74c476";
    }
    return "#ffffff";
}

// The K slice an interval belongs to, counted across the block's tiles; an epilogue sits
// between its tile's last slice and the next tile's first.
double global_slice(const OverlapInterval& i, int k_slices) {
    return i.event == OverlapEvent::epilogue ? (i.tile + 1) * k_slices - 0.5 : double(i.tile * k_slices + i.k_slice);
}

double median(std::vector<double> values) {
    std::sort(values.begin(), values.end());
    return values[values.size() / 2];
}

// Words of `text` in lines of at most `width` characters.
std::vector<std::string> wrap(const std::string& text, std::size_t width) {
    std::vector<std::string> lines{""};
    std::istringstream words(text);
    std::string word;
    while (words >> word) {
        if (!lines.back().empty() && lines.back().size() + 1 + word.size() > width) lines.emplace_back();
        lines.back() += (lines.back().empty() ? "" : " ") + word;
    }
    return lines;
}

struct Panel {
    std::string id, title;
    double begin_ns, end_ns;
};

// The time consumer 0 spends on slices first..last (counted across tiles): from its wait for
// slice `first` to its wait for slice last + 1, or to its last interval if there is none.
// An iteration is a wait for slice k, its wgmma issue and the wait for slice k - 1's MMAs, so
// the window holds the MMA wait of slice first - 1 and not that of slice last.
Panel window(const std::vector<OverlapInterval>& consumer0, int k_slices, int first, int last, std::string id,
             std::string title) {
    Panel panel{std::move(id), std::move(title), -1, -1};
    for (const auto& i : consumer0) {
        if (i.event != OverlapEvent::wait_full) continue;
        const double g = global_slice(i, k_slices);
        if (g == first) panel.begin_ns = i.begin_ns;
        if (g == last + 1) panel.end_ns = i.begin_ns;
    }
    if (panel.begin_ns < 0) panel.begin_ns = consumer0.front().begin_ns;
    if (panel.end_ns < 0) panel.end_ns = consumer0.back().end_ns;
    return panel;
}

}  // namespace

std::string overlap_timeline_svg(const OverlapTimeline& timeline, int block) {
    const auto intervals = timeline.of(block);
    const auto consumer0 = timeline.of(block, OverlapRole::consumer0);
    const int k_slices = timeline.k_slices();
    if (consumer0.empty())
        throw InputError(fmt::format("the overlap timeline has no consumer0 rows for block {}; pick a block the probe "
                                     "recorded",
                                     block));
    // The steady-state slice: the median time between consumer 0's successive MMA issues within a tile.
    std::vector<double> periods;
    const OverlapInterval* previous = nullptr;
    for (const auto& i : consumer0) {
        if (i.event != OverlapEvent::mma_issue) continue;
        if (previous != nullptr && previous->tile == i.tile) periods.push_back(i.begin_ns - previous->begin_ns);
        previous = &i;
    }
    if (periods.empty() || median(periods) <= 0)
        throw InputError(fmt::format("block {} of the overlap timeline has fewer than two K slices in a tile; the "
                                     "figure needs at least two to find its time scale",
                                     block));
    const double slice_ns = median(periods);
    int tiles = 0;
    for (const auto& i : consumer0) tiles = std::max(tiles, i.tile + 1);

    const int start_slices = std::min(12, k_slices);
    std::vector<Panel> panels;
    Panel start = window(consumer0, k_slices, 0, start_slices - 1, "start",
                         fmt::format("The start: the block's first {} K slices", start_slices));
    for (const auto& i : intervals) start.begin_ns = std::min(start.begin_ns, i.begin_ns);
    panels.push_back(start);
    if (tiles >= 2) {
        const int before = std::min(6, k_slices), after = std::min(6, k_slices);
        panels.push_back(window(consumer0, k_slices, k_slices - before, k_slices + after - 1, "steady",
                                fmt::format("Steady state and a change of tile: slices {}-{} of the first tile, its "
                                            "epilogue, slices 0-{} of the next",
                                            k_slices - before, k_slices - 1, after - 1)));
    } else {
        const int first = std::max(0, k_slices / 2 - 6), last = std::min(k_slices - 1, first + 11);
        panels.push_back(window(consumer0, k_slices, first, last, "steady",
                                fmt::format("Steady state: slices {}-{} of the first tile", first, last)));
    }

    SvgCanvas c;
    c.text(12, 24, "Inside one block of lab 06's part 3 GEMM: who waits, who works", kTitleFont, "start",
           "font-weight='bold'");
    double y = 44;
    for (const auto& line : wrap(fmt::format("Block {}. Data: {}", block, timeline.source), 130)) {
        c.text(12, y, line, kSmallFont);
        y += 13;
    }
    y += 14;

    const double left = 12 + kLabelWidth;
    const OverlapRole roles[] = {OverlapRole::producer, OverlapRole::consumer0, OverlapRole::consumer1};
    const char* lane_names[] = {"producer (one thread)", "consumer 0 (warpgroup 1)", "consumer 1 (warpgroup 2)"};
    for (const auto& panel : panels) {
        c.text(12, y, panel.title, kFont, "start", "font-weight='bold'");
        y += 8;
        auto x = [&](double ns) { return left + (ns - panel.begin_ns) / slice_ns * kSlicePx; };
        for (int lane = 0; lane < 3; ++lane) {
            y += kLaneGap;  // room for the slice numbers above the lane
            c.text(12, y + kLaneHeight / 2 + 4, lane_names[lane], kFont);
            c.element(fmt::format("<rect x='{:.1f}' y='{:.1f}' width='{:.1f}' height='{:.1f}' fill='none' "
                                  "stroke='#bbb'/>\n",
                                  left, y, x(panel.end_ns) - left, kLaneHeight),
                      x(panel.end_ns), y + kLaneHeight);
            double label_right = -1e300;
            for (const auto& i : intervals) {
                if (i.role != roles[lane] || i.end_ns <= panel.begin_ns || i.begin_ns >= panel.end_ns) continue;
                const double x0 = x(std::max(i.begin_ns, panel.begin_ns)), x1 = x(std::min(i.end_ns, panel.end_ns));
                if (x1 <= x0) continue;
                c.element(fmt::format("<rect class='bar' data-panel='{}' data-lane='{}' data-event='{}' "
                                      "data-tile='{}' data-k='{}' x='{:.3f}' y='{:.1f}' width='{:.3f}' "
                                      "height='{:.1f}' fill='{}' stroke='none'/>\n",
                                      panel.id, overlap_role_name(i.role), overlap_event_name(i.event), i.tile,
                                      i.k_slice, x0, y, x1 - x0, kLaneHeight, fill_of(i.event)),
                          x1, y + kLaneHeight);
                // The slice number over each copy issue and each MMA issue, where it has room.
                if (i.event == OverlapEvent::issue || i.event == OverlapEvent::mma_issue) {
                    const std::string label = std::to_string(i.k_slice);
                    const double w = text_width(label, kSmallFont);
                    if (x0 - w / 2 > label_right + 2) {
                        c.text(x0, y - 3, label, kSmallFont, "middle");
                        label_right = x0 + w / 2;
                    }
                }
            }
            y += kLaneHeight;
        }
        // The time axis: one tick per steady-state slice from the panel's start.
        y += 8;
        const double span = (panel.end_ns - panel.begin_ns) / slice_ns;
        c.element(fmt::format("<line x1='{:.1f}' y1='{:.1f}' x2='{:.1f}' y2='{:.1f}' stroke='{}'/>\n", left, y,
                              x(panel.end_ns), y, kInk),
                  x(panel.end_ns), y);
        for (int t = 0; t <= int(span); ++t) {
            const double tx = left + t * kSlicePx;
            c.element(fmt::format("<line x1='{0:.1f}' y1='{1:.1f}' x2='{0:.1f}' y2='{2:.1f}' stroke='{3}'/>\n", tx,
                                  y - 3, y + 3, kInk),
                      tx, y + 3);
            if (t % 2 == 0) c.text(tx, y + 15, std::to_string(t), kSmallFont, "middle");
        }
        c.text(12, y + 15, "steady-state slices", kSmallFont);
        y += 40;
    }

    // The legend and how to read it.
    double lx = 12;
    for (auto event : {OverlapEvent::issue, OverlapEvent::wait_empty, OverlapEvent::mma_issue, OverlapEvent::mma_wait,
                       OverlapEvent::epilogue}) {
        const char* text = event == OverlapEvent::issue        ? "producer: TMA copies issued"
                           : event == OverlapEvent::wait_empty ? "waiting on a barrier (empty or full)"
                           : event == OverlapEvent::mma_issue  ? "consumer: wgmma issued"
                           : event == OverlapEvent::mma_wait   ? "waiting on the tensor cores"
                                                               : "epilogue: storing the tile";
        c.element(fmt::format("<rect x='{:.1f}' y='{:.1f}' width='14' height='14' fill='{}' stroke='{}'/>\n", lx,
                              y - 11, fill_of(event), kInk),
                  lx + 14, y + 3);
        c.text(lx + 20, y, text, kFont);
        lx += 20 + text_width(text, kFont) + 22;
    }
    y += 26;
    for (const char* line :
         {"Numbers over the bars: the K slice a copy loads (producer) or a wgmma group multiplies (consumers); they",
          "restart at 0 with each tile. Grey in the producer's lane: the ring is full and it is ahead. Grey in a",
          "consumer's lane: its slice has not landed. Light orange: its MMAs are queued on the tensor cores."}) {
        c.text(12, y, line, kFont);
        y += kLine;
    }
    return c.finish(0, 0);
}

}  // namespace roofline
