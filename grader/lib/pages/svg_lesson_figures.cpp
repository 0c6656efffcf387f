#include "svg_lesson_figures.hpp"

#include "svg_canvas.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

namespace roofline {

namespace {

constexpr double kFont = 12, kSmallFont = 10, kTitleFont = 15, kLine = 17;
constexpr const char *kCopy = "#9ecae1", *kWait = "#e0e0e0", *kRead = "#fdae6b", *kMma = "#f16913", *kInk = "#333";

std::string arrow_defs() {
    return "<defs><marker id='arrow' viewBox='0 0 10 10' refX='9' refY='5' markerWidth='7' markerHeight='7' "
           "orient='auto-start-reverse'><path d='M0,0 L10,5 L0,10 z' fill='#333'/></marker></defs>\n";
}

void rect(SvgCanvas& c, double x, double y, double w, double h, const std::string& fill, const std::string& extra = "") {
    // `extra` first, so that a class is the first attribute as the pictures' tests read it.
    c.element(fmt::format("<rect{} x='{:.1f}' y='{:.1f}' width='{:.1f}' height='{:.1f}' fill='{}' stroke='{}'/>\n",
                          extra, x, y, w, h, fill, kInk),
              x + w, y + h);
}

void arrow(SvgCanvas& c, double x1, double y1, double x2, double y2) {
    c.element(fmt::format("<line x1='{:.1f}' y1='{:.1f}' x2='{:.1f}' y2='{:.1f}' stroke='{}' stroke-width='1.5' "
                          "marker-end='url(#arrow)'/>\n",
                          x1, y1, x2, y2, kInk),
              std::max(x1, x2), std::max(y1, y2));
}

// A box sized to its lines, the first one bold; returns its width.
double text_box(SvgCanvas& c, double x, double y, const std::vector<std::string>& lines, const std::string& fill) {
    double width = 0;
    for (const auto& line : lines) width = std::max(width, text_width(line, kFont));
    width += 16;
    double height = 10 + kLine * double(lines.size());
    rect(c, x, y, width, height, fill, " rx='6'");
    for (std::size_t i = 0; i < lines.size(); ++i) {
        c.text(x + 8, y + 4 + kLine * double(i + 1) - 3, lines[i], kFont, "start",
               i == 0 ? "font-weight='bold'" : "");
    }
    return width;
}

}  // namespace

std::string mbarrier_ring_svg(int stages) {
    SvgCanvas c;
    c.element(arrow_defs(), 0, 0);
    c.text(12, 24, fmt::format("A ring of {} stages: TMA fills them, the consumers drain them", stages), kTitleFont,
           "start", "font-weight='bold'");

    const double top = 50;
    double producer_width =
        text_box(c, 12, top,
                 {"producer (one thread)", "1. wait empty[s], parity ph ^ 1", "2. arrive_expect_tx(full[s], bytes)",
                  "3. TMA copy of tile i -> stage s"},
                 "#eef5fb");

    // The stages, each with its two barriers under it.
    const double stage_w = 112, stage_h = 54, stage_gap = 14;
    const double stages_left = 12 + producer_width + 60;
    for (int s = 0; s < stages; ++s) {
        double x = stages_left + s * (stage_w + stage_gap);
        rect(c, x, top, stage_w, stage_h, kCopy);
        c.text(x + stage_w / 2, top + 22, fmt::format("stage {}", s), kFont, "middle", "font-weight='bold'");
        c.text(x + stage_w / 2, top + 40, "one tile", kSmallFont, "middle");
        rect(c, x + 4, top + stage_h + 8, stage_w / 2 - 6, 20, "#c7e9c0");
        c.text(x + 4 + (stage_w / 2 - 6) / 2, top + stage_h + 22, fmt::format("full[{}]", s), kSmallFont, "middle");
        rect(c, x + stage_w / 2 + 2, top + stage_h + 8, stage_w / 2 - 6, 20, "#fdd0a2");
        c.text(x + stage_w / 2 + 2 + (stage_w / 2 - 6) / 2, top + stage_h + 22, fmt::format("empty[{}]", s),
               kSmallFont, "middle");
    }
    double stages_right = stages_left + stages * stage_w + (stages - 1) * stage_gap;
    double consumers_left = stages_right + 60;
    text_box(c, consumers_left, top,
             {"consumers", "1. wait full[s], parity ph", "2. read the tile", "3. arrive on empty[s]"}, "#fff2e6");

    // TMA writes into the stages; full completes toward the consumers; empty returns to the producer.
    arrow(c, 12 + producer_width + 4, top + 27, stages_left - 4, top + 27);
    c.text(12 + producer_width + 30, top + 20, "TMA", kSmallFont, "middle");
    arrow(c, stages_right + 4, top + 27, consumers_left - 4, top + 27);
    c.text(stages_right + 30, top + 20, "full", kSmallFont, "middle");
    double loop_y = top + stage_h + 58;
    c.element(fmt::format("<path d='M{:.1f},{:.1f} V{:.1f} H{:.1f} V{:.1f}' fill='none' stroke='{}' "
                          "stroke-width='1.5' marker-end='url(#arrow)'/>\n",
                          consumers_left + 40, top + 78, loop_y, 12 + 40.0, top + 78, kInk),
              consumers_left + 40, loop_y);
    c.text((12 + consumers_left) / 2 + 20, loop_y + 16,
           "empty[s] completes when every consumer has arrived: the producer may refill stage s", kFont, "middle");
    c.text((12 + consumers_left) / 2 + 20, top + stage_h + 46,
           "full[s] completes when its arrival and every byte of the tile have landed", kFont, "middle");

    // Which stage and which parity tile i uses.
    double table_top = loop_y + 40;
    c.text(12, table_top, fmt::format("tile i goes to stage i % {} and waits for parity (i / {}) & 1:", stages, stages),
           kFont);
    const double cell = 44;
    c.text(12, table_top + 26, "tile", kFont);
    c.text(12, table_top + 26 + 22, "stage", kFont);
    c.text(12, table_top + 26 + 44, "parity", kFont);
    for (int i = 0; i < 2 * stages + 2; ++i) {
        double x = 70 + i * cell;
        bool second_lap = (i / stages) % 2 == 1;
        rect(c, x, table_top + 10, cell, 66, second_lap ? "#f2f2f2" : "#ffffff");
        c.text(x + cell / 2, table_top + 26, fmt::format("{}", i), kFont, "middle");
        c.text(x + cell / 2, table_top + 48, fmt::format("{}", i % stages), kFont, "middle");
        c.text(x + cell / 2, table_top + 70, fmt::format("{}", (i / stages) & 1), kFont, "middle");
    }
    c.text(12, table_top + 100,
           "The parity flips each time the ring wraps. A fresh barrier counts its phase before the first as done,",
           kFont);
    c.text(12, table_top + 100 + kLine,
           "so the producer's first wait on each empty barrier (parity 1) passes at once: every stage starts empty.",
           kFont);
    return c.finish(0, 0);
}

std::string warp_specialized_pipeline_svg(int stages, int slices, double latency_slots) {
    // The schedule: copy k is issued when its stage was last freed (at once for the first
    // `stages`), lands latency_slots later, and its MMAs start when it has landed and the
    // previous slice's MMAs are done; a stage is freed when its slice's MMAs end.
    std::vector<double> issue(slices), land(slices), start(slices), end(slices);
    for (int k = 0; k < slices; ++k) {
        issue[k] = k < stages ? 0.25 * k : end[k - stages];  // the first copies one after another
        land[k] = issue[k] + latency_slots;
        start[k] = std::max(land[k], k > 0 ? end[k - 1] : 0.0);
        end[k] = start[k] + 1;
    }
    double t_end = end[slices - 1] + 0.3;

    SvgCanvas c;
    c.element(arrow_defs(), 0, 0);
    c.text(12, 24,
           fmt::format("A warp-specialized pipeline: {} K slices through {} stages (schematic, not measured)", slices,
                       stages),
           kTitleFont, "start", "font-weight='bold'");
    const double label_w = 190, slot = 62, lane_h = 24, lane_gap = 10;
    const double left = 12 + label_w, top = 50;
    auto x = [&](double t) { return left + t * slot; };

    double y = top;
    auto lane_label = [&](const std::string& text) { c.text(12, y + lane_h / 2 + 4, text, kFont); };

    lane_label("producer thread (TMA)");
    for (int k = 0; k < slices; ++k) {
        c.element(fmt::format("<line x1='{0:.1f}' y1='{1:.1f}' x2='{0:.1f}' y2='{2:.1f}' stroke='{3}' "
                              "stroke-width='2'/>\n",
                              x(issue[k]), y + 2, y + lane_h - 2, kInk),
                  x(issue[k]), y + lane_h);
        c.text(x(issue[k]) + 3, y + 11, fmt::format("{}", k), kSmallFont);
    }
    y += lane_h + lane_gap;

    for (int s = 0; s < stages; ++s) {
        lane_label(fmt::format("stage {}", s));
        for (int k = s; k < slices; k += stages) {
            rect(c, x(issue[k]), y, x(land[k]) - x(issue[k]), lane_h, kCopy);
            c.text((x(issue[k]) + x(land[k])) / 2, y + 16, fmt::format("copy {}", k), kSmallFont, "middle");
            if (start[k] > land[k] + 1e-9) {
                rect(c, x(land[k]), y, x(start[k]) - x(land[k]), lane_h, kWait, " class='wait'");
            }
            rect(c, x(start[k]), y, x(end[k]) - x(start[k]), lane_h, kRead);
            c.text((x(start[k]) + x(end[k])) / 2, y + 16, fmt::format("read {}", k), kSmallFont, "middle");
        }
        y += lane_h + 4;
    }
    y += lane_gap - 4;

    for (int wg = 1; wg <= 2; ++wg) {
        lane_label(fmt::format("consumer warpgroup {} (MMA)", wg));
        for (int k = 0; k < slices; ++k) {
            rect(c, x(start[k]), y, x(end[k]) - x(start[k]), lane_h, kMma, fmt::format(" class='mma{}'", wg));
            c.text((x(start[k]) + x(end[k])) / 2, y + 16, fmt::format("{}", k), kSmallFont, "middle");
        }
        y += lane_h + 4;
    }

    // The time axis, in slices of MMA work.
    y += 8;
    arrow(c, x(0), y, x(t_end), y);
    for (int t = 0; t <= int(t_end); ++t) {
        c.element(fmt::format("<line x1='{0:.1f}' y1='{1:.1f}' x2='{0:.1f}' y2='{2:.1f}' stroke='{3}'/>\n", x(t), y - 4,
                              y + 4, kInk),
                  x(t), y + 4);
    }
    c.text(x(0), y + 20, "time, in units of one K slice's MMAs", kFont);

    double legend_y = y + 48;
    double lx = 12;
    for (auto [fill, text] : {std::pair{kCopy, "copy in flight (TMA, full[s] pending)"},
                              std::pair{kWait, "landed, waiting its turn"},
                              std::pair{kRead, "read by the MMAs (empty[s] pending)"}}) {
        rect(c, lx, legend_y - 11, 14, 14, fill);
        c.text(lx + 20, legend_y, text, kFont);
        lx += 20 + text_width(text, kFont) + 24;
    }
    c.text(12, legend_y + 26,
           fmt::format("A copy takes {:g} slices of MMA time. {} stages keep {} copies in flight while one is read, so "
                       "after the first copy",
                       latency_slots, stages, stages - 1),
           kFont);
    c.text(12, legend_y + 26 + kLine,
           "lands the tensor cores never wait: each stage is refilled the moment its slice's MMAs release it.", kFont);
    return c.finish(0, 0);
}

std::string swizzle_bank_map_svg(int highlight) {
    constexpr int kRows = 8, kChunks = 8;
    constexpr double kCell = 46, kRowHeight = 26, kGap = 70;
    SvgCanvas c;
    c.text(12, 24, fmt::format("Chunk {} of 8 rows of 128 bytes: where a warp's 8 reads land", highlight), kTitleFont,
           "start", "font-weight='bold'");
    const double top = 78, label_width = 56;
    auto panel = [&](double left, const std::string& title, bool swizzled) {
        c.text(left + label_width, top - 34, title, kFont, "start", "font-weight='bold'");
        c.text(left, top - 8, "banks", kSmallFont);
        for (int q = 0; q < kChunks; ++q) {
            c.text(left + label_width + kCell * (q + 0.5), top - 8, fmt::format("{}-{}", 4 * q, 4 * q + 3), kSmallFont,
                   "middle");
        }
        for (int row = 0; row < kRows; ++row) {
            double y = top + kRowHeight * row;
            c.text(left, y + kRowHeight - 8, fmt::format("row {}", row), kSmallFont);
            for (int physical = 0; physical < kChunks; ++physical) {
                // The cell at physical chunk p holds logical chunk p ^ (row % 8) when swizzled.
                int logical = swizzled ? physical ^ (row % kRows) : physical;
                bool marked = logical == highlight;
                rect(c, left + label_width + kCell * physical, y, kCell, kRowHeight, marked ? kMma : "#ffffff",
                     marked ? (swizzled ? " class='swizzled'" : " class='plain'") : "");
                c.text(left + label_width + kCell * (physical + 0.5), y + kRowHeight - 8, std::to_string(logical),
                       kSmallFont, "middle", marked ? "font-weight='bold'" : "");
            }
        }
    };
    panel(12, "no swizzle: chunk q of row i at q", false);
    const double right_panel = 12 + label_width + kCell * kChunks + kGap;
    panel(right_panel, "128B swizzle: chunk q of row i at q ^ (i % 8)", true);
    const double bottom = top + kRowHeight * kRows + 24;
    c.text(12, bottom, fmt::format("Left: all 8 reads of chunk {} fall in banks {}-{}, an 8-way conflict.", highlight,
                                   4 * highlight, 4 * highlight + 3),
           kFont);
    c.text(12, bottom + kLine, "Right: the 8 reads land in 8 different chunks, all 32 banks once: no conflict.", kFont);
    c.text(12, bottom + 2 * kLine, "Each cell shows the logical chunk it holds; a row's chunks are only permuted.",
           kFont);
    return c.finish(0, 0);
}

std::string coalescing_svg() {
    constexpr int kSide = 32;  // 32 fp32 = one 128-byte line per row
    constexpr double kCell = 8, kGap = 90;
    SvgCanvas c;
    c.text(12, 24, "One warp, one load instruction: how many 128-byte lines it touches", kTitleFont, "start",
           "font-weight='bold'");
    const double top = 84;
    auto panel = [&](double left, const std::vector<std::string>& title, const std::string& tag, bool along_m) {
        for (std::size_t i = 0; i < title.size(); ++i) {
            c.text(left, top - 40 + kLine * double(i), title[i], kFont, "start", i == 0 ? "font-weight='bold'" : "");
        }
        const int picked = 5;  // the k (rung 1) or the row (rung 2) this load reads
        for (int row = 0; row < kSide; ++row) {
            for (int col = 0; col < kSide; ++col) {
                bool read = along_m ? col == picked : row == picked;
                rect(c, left + kCell * col, top + kCell * row, kCell, kCell, read ? kMma : "#ffffff",
                     read ? " class='" + tag + "'" : "");
            }
        }
        c.text(left, top + kCell * kSide + 16, "each row: one 128-byte line (32 x fp32)", kSmallFont);
    };
    panel(12, {"Rung 1: threadIdx.x along M", "A[row .. row+31][k]: 32 lines"}, "rung1", true);
    panel(12 + kCell * kSide + kGap, {"Rung 2: threadIdx.x along N", "B[k][col .. col+31]: 1 line"}, "rung2", false);
    const double bottom = top + kCell * kSide + 44;
    c.text(12, bottom, "Same arithmetic, same number of loads; rung 1's load asks the memory system for 32 lines,", kFont);
    c.text(12, bottom + kLine, "rung 2's for one (and A[row][k] becomes one address broadcast to the warp).", kFont);
    return c.finish(0, 0);
}

std::string tmem_lanes_svg(int accumulator_columns, int warp, int load_column) {
    constexpr int kLanes = 128, kColumns = 512;
    constexpr double kLanePx = 2, kColumnPx = 1;
    SvgCanvas c;
    c.text(12, 24, "Tensor memory of one SM: 128 lanes x 512 columns of 32-bit cells", kTitleFont, "start",
           "font-weight='bold'");
    const double left = 200, top = 70;
    // The columns' scale above the grid.
    for (int column = 0; column <= kColumns; column += 128) {
        c.text(left + kColumnPx * column, top - 8, std::to_string(column), kSmallFont, "middle");
    }
    c.text(left + kColumnPx * kColumns + 24, top - 8, "(column)", kSmallFont);
    // The four lane quarters and who may read them.
    const char* fills[] = {"#f7fbff", "#deebf7", "#f7fbff", "#deebf7"};
    for (int quarter = 0; quarter < 4; ++quarter) {
        double y = top + kLanePx * 32 * quarter;
        rect(c, left, y, kColumnPx * kColumns, kLanePx * 32, fills[quarter], " class='quarter'");
        c.text(left - 10, y + kLanePx * 16 + 4,
               fmt::format("lanes {}-{}: warps {}, {}, ...", 32 * quarter, 32 * quarter + 31, quarter, quarter + 4),
               kFont, "end");
    }
    // The accumulator: row i of C in lane i, column j in column j.
    rect(c, left, top, kColumnPx * accumulator_columns, kLanePx * kLanes, "none",
         " class='accumulator' stroke-width='2.5' stroke-dasharray='6 3'");
    // One load: warp `warp` reads its quarter, 32 columns from load_column.
    const int quarter = warp % 4;
    rect(c, left + kColumnPx * load_column, top + kLanePx * 32 * quarter, kColumnPx * 32, kLanePx * 32, kMma,
         " class='load'");
    const double bottom = top + kLanePx * kLanes + 26;
    c.text(left, bottom,
           fmt::format("dashed: a 128 x {} fp32 accumulator (row i in lane i), {} of the 512 columns",
                       accumulator_columns, accumulator_columns),
           kFont);
    c.text(left, bottom + kLine,
           fmt::format("orange: warp {} runs tcgen05.ld.32x32b.x32 at column {}: lane i of the warp gets", warp,
                       load_column),
           kFont);
    c.text(left, bottom + 2 * kLine,
           fmt::format("columns {}-{} of lane {} + i; a warp reaches only lanes 32 (w % 4) .. 32 (w % 4) + 31",
                       load_column, load_column + 31, 32 * quarter),
           kFont);
    return c.finish(0, 0);
}

std::string tile_walk_svg(int steps, int step) {
    constexpr double kTile = 44, kStep = 22;  // a T-wide side, a T_K-wide side
    SvgCanvas c;
    c.text(12, 24, fmt::format("A block's tile of C walks K: step {} of {}", step + 1, steps), kTitleFont, "start",
           "font-weight='bold'");
    // B's column panel on top, A's row panel on the left, C's tile where they cross.
    const double a_left = 12 + 60, c_left = a_left + kStep * steps + 24, b_top = 60, c_top = b_top + kStep * steps + 24;
    c.text(c_left + kTile + 10, b_top + kStep * steps / 2, "B: T_K x T tiles", kFont);
    for (int k = 0; k < steps; ++k) {
        bool now = k == step;
        rect(c, c_left, b_top + kStep * k, kTile, kStep, now ? kMma : (k < step ? kWait : "#ffffff"),
             now ? " class='b-now'" : " class='b'");
        rect(c, a_left + kStep * k, c_top, kStep, kTile, now ? kMma : (k < step ? kWait : "#ffffff"),
             now ? " class='a-now'" : " class='a'");
    }
    c.text(12, c_top - 8, "A: T x T_K tiles", kFont);
    rect(c, c_left, c_top, kTile, kTile, kCopy, " class='c'");
    c.text(c_left + kTile / 2, c_top + kTile / 2 + 4, "C", kFont, "middle", "font-weight='bold'");
    const double bottom = c_top + kTile + 28;
    c.text(12, bottom, "Orange: the two tiles this step brings into shared memory (the same k range of A and B);",
           kFont);
    c.text(12, bottom + kLine, "grey: steps done, their products already added into the C tile, which stays on chip.",
           kFont);
    c.text(12, bottom + 2 * kLine, "Per step: (T + T) T_K elements loaded, 2 T T T_K FLOPs: T FLOPs per element.", kFont);
    return c.finish(0, 0);
}

std::string warp_tile_svg(int lane) {
    constexpr int kBlock = 128, kWarpM = 32, kWarpN = 64, kSubM = 16, kSubN = 32, kPiece = 4;
    constexpr double kBlockPx = 1.25, kZoomPx = 6;
    SvgCanvas c;
    c.text(12, 24, fmt::format("Rung 7: block tile, warp tile, and the four 4 x 4 pieces of lane {}", lane),
           kTitleFont, "start", "font-weight='bold'");
    const double top = 64, left = 12;
    // The block tile: 4 x 2 warps.
    const std::string block_caption = "block tile 128 x 128: 4 x 2 warp tiles";
    c.text(left, top - 10, block_caption, kFont);
    for (int wm = 0; wm < kBlock / kWarpM; ++wm) {
        for (int wn = 0; wn < kBlock / kWarpN; ++wn) {
            bool first = wm == 0 && wn == 0;
            double x = left + kBlockPx * kWarpN * wn, y = top + kBlockPx * kWarpM * wm;
            rect(c, x, y, kBlockPx * kWarpN, kBlockPx * kWarpM, first ? kCopy : "#ffffff");
            c.text(x + kBlockPx * kWarpN / 2, y + kBlockPx * kWarpM / 2 + 4, fmt::format("warp {}", 2 * wm + wn),
                   kSmallFont, "middle");
        }
    }
    // The first warp's tile, enlarged: 2 x 2 sub-tiles, each 4 x 8 lanes of 4 x 4 pieces.
    const double zoom_left = left + std::max(kBlockPx * kBlock, text_width(block_caption, kFont)) + 40;
    c.text(zoom_left, top - 10, "warp 0's tile, 32 x 64: 2 x 2 sub-tiles of 16 x 32 (numbers: the owning lane)",
           kFont);
    for (int row = 0; row < kWarpM; row += kPiece) {
        for (int col = 0; col < kWarpN; col += kPiece) {
            int owner = ((row % kSubM) / kPiece) * 8 + (col % kSubN) / kPiece;
            bool mine = owner == lane;
            double x = zoom_left + kZoomPx * col, y = top + kZoomPx * row;
            rect(c, x, y, kZoomPx * kPiece, kZoomPx * kPiece, mine ? kMma : ((row / kSubM + col / kSubN) % 2 ? "#f0f0f0" : "#ffffff"),
                 mine ? " class='lane-piece'" : " class='piece'");
            c.text(x + kZoomPx * kPiece / 2, y + kZoomPx * kPiece / 2 + 3, std::to_string(owner), kSmallFont - 2,
                   "middle", mine ? "font-weight='bold'" : "");
        }
    }
    const double bottom = top + kZoomPx * kWarpM + 28;
    c.text(12, bottom, fmt::format("Lane {} owns rows {}-{} and {}-{}, columns {}-{} and {}-{} of the warp tile: 64 outputs.",
                                   lane, 4 * (lane / 8), 4 * (lane / 8) + 3, 16 + 4 * (lane / 8), 16 + 4 * (lane / 8) + 3,
                                   4 * (lane % 8), 4 * (lane % 8) + 3, 32 + 4 * (lane % 8), 32 + 4 * (lane % 8) + 3),
           kFont);
    c.text(12, bottom + kLine, "In one step the 32 lanes read 32 + 64 consecutive floats of a k row: 64 or 128 contiguous bytes", kFont);
    c.text(12, bottom + 2 * kLine, "per 16-byte load, no bank conflicts.", kFont);
    return c.finish(0, 0);
}

}  // namespace roofline
