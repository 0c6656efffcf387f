// The pictures (lib/grading/svg.cpp, lib/grading/roof_placement.cpp): the lab roofline puts a
// zero-FLOP kernel and a compute-bound one at their fraction of the roof that
// binds them, the log's scatter draws one prediction once, and every label's
// box fits its canvas. The SVG is read back as text; each picture is also
// kept under build/test-artifacts/pictures/, and rendered to PNG there when
// rsvg-convert (Debian's librsvg2-bin) is installed.
#include "test_support.hpp"

#include "calibration.hpp"
#include "hardware.hpp"
#include "lab_spec.hpp"
#include "report.hpp"
#include "roof_placement.hpp"
#include "score.hpp"
#include "svg.hpp"
#include "svg_canvas.hpp"
#include "svg_lesson_figures.hpp"
#include "svg_overlap_timeline.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <cstdlib>
#include <regex>

using namespace roofline;
using namespace roofline_test;
using nlohmann::json;

namespace {

std::string attribute(const std::string& tag, const std::string& name) {
    std::smatch m;
    if (!std::regex_search(tag, m, std::regex("\\s" + name + "='([^']*)'"))) return "";
    return m[1];
}
double number_attribute(const std::string& tag, const std::string& name) {
    auto text = attribute(tag, name);
    INFO(tag << " has no " << name);
    REQUIRE(!text.empty());
    return std::stod(text);
}

std::string unescape(std::string text) {
    for (auto [entity, plain] : {std::pair{"&lt;", "<"}, {"&gt;", ">"}, {"&apos;", "'"}, {"&quot;", "\""}, {"&amp;", "&"}}) {
        for (auto at = text.find(entity); at != std::string::npos; at = text.find(entity, at + 1)) {
            text.replace(at, std::string(entity).size(), plain);
        }
    }
    return text;
}

struct Box {
    std::string text;
    double left, top, right, bottom;
};

// Every <text> element's box, from its position, anchor, size and rotation.
struct Picture {
    double width = 0, height = 0;
    std::string svg;
    std::vector<Box> labels;

    explicit Picture(std::string document) : svg(std::move(document)) {
        std::smatch root;
        REQUIRE(std::regex_search(svg, root, std::regex("<svg[^>]*>")));
        width = number_attribute(root.str(), "width");
        height = number_attribute(root.str(), "height");
        std::regex text_element("<text([^>]*)>([^<]*)</text>");
        for (auto it = std::sregex_iterator(svg.begin(), svg.end(), text_element); it != std::sregex_iterator(); ++it) {
            std::string tag = (*it)[1], content = unescape((*it)[2]);
            double font = number_attribute(tag, "font-size");
            double w = text_width(content, font);
            std::string anchor = attribute(tag, "text-anchor");
            double before = anchor == "end" ? w : anchor == "middle" ? w / 2 : 0;  // along the text, before its anchor
            double x, y;
            auto transform = attribute(tag, "transform");
            if (transform.empty()) {
                x = number_attribute(tag, "x");
                y = number_attribute(tag, "y");
                labels.push_back({content, x - before, y - kSvgAscent * font, x - before + w, y + kSvgDescent * font});
            } else {
                std::smatch t;
                REQUIRE(std::regex_match(transform, t, std::regex("translate\\(([-0-9.]+),([-0-9.]+)\\) rotate\\(-90\\)")));
                x = std::stod(t[1]);
                y = std::stod(t[2]);
                // turned left: the text runs upward from its anchor
                labels.push_back({content, x - kSvgAscent * font, y - (w - before), x + kSvgDescent * font, y + before});
            }
        }
    }

    std::vector<std::string> tags(const std::string& element, const std::string& css_class) const {
        std::vector<std::string> out;
        std::regex pattern("<" + element + " class='" + css_class + "'[^>]*>");
        for (auto it = std::sregex_iterator(svg.begin(), svg.end(), pattern); it != std::sregex_iterator(); ++it) {
            out.push_back(it->str());
        }
        return out;
    }

    // The circle whose tooltip is `label`.
    std::string mark(const std::string& label) const {
        std::regex pattern("<circle class='mark'[^>]*><title>" + std::regex_replace(svg_escape(label), std::regex("[.^$|()\\[\\]{}*+?\\\\]"), "\\$&") + "</title>");
        std::smatch m;
        INFO("no mark titled " << label);
        REQUIRE(std::regex_search(svg, m, pattern));
        return m.str();
    }

    void check_labels_fit() const {
        REQUIRE(!labels.empty());
        for (const auto& b : labels) {
            INFO("'" << b.text << "' spans x " << b.left << ".." << b.right << ", y " << b.top << ".." << b.bottom
                     << " on a " << width << " x " << height << " canvas");
            CHECK(b.left >= 0);
            CHECK(b.top >= 0);
            CHECK(b.right <= width);
            CHECK(b.bottom <= height);
        }
    }
};

// Keeps the picture for a person to look at, and renders it where a real SVG renderer exists.
void keep_artifact(const std::string& name, const std::string& svg) {
    auto dir = fs::path(ROOFLINE_BINARY_DIR) / "test-artifacts" / "pictures";
    fs::create_directories(dir);
    write_file(dir / (name + ".svg"), svg);
    if (std::system("command -v rsvg-convert >/dev/null 2>&1") != 0) {
        WARN("rsvg-convert not installed (apt-get install librsvg2-bin): " << name << ".svg kept, not rendered");
        return;
    }
    auto png = dir / (name + ".png");
    int rc = std::system(("rsvg-convert -o " + shell_quote(png.string()) + " " + shell_quote((dir / (name + ".svg")).string()) +
                          " 2>&1").c_str());
    CHECK(rc == 0);
    CHECK(fs::exists(png));
}

HardwareProfile gpu = test_gpu();

// A fixture variant scored from a lab program's result, as `roofline grade` does.
Score score_fixture(const std::string& lab_dir, const std::string& variant, double variant_s, double peer_s,
                    const std::string& peer_name) {
    auto lab = load_lab(test_data() / "labs" / lab_dir / "lab.yaml");
    const auto& v = lab.variant(variant);
    return score_run(lab, v, lab_result("ok", variant_s, peer_s, peer_name), gpu, choose_ceiling(gpu, nullptr, v.dtype),
                     nullptr);
}

// What fraction of the roof a mark's height says, read off the picture: 0% at the plot's floor, 100% on the roof line.
double drawn_fraction(const Picture& picture, const std::string& mark) {
    auto roofs = picture.tags("line", "roof");
    auto plots = picture.tags("rect", "plot");
    REQUIRE(roofs.size() == 1);
    REQUIRE(plots.size() == 1);
    double floor_y = number_attribute(plots[0], "y") + number_attribute(plots[0], "height");
    double roof_y = number_attribute(roofs[0], "y1");
    return (floor_y - number_attribute(mark, "cy")) / (floor_y - roof_y);
}

}  // namespace

TEST_CASE("text_width: DejaVu Sans's advance widths, never under them", "[pictures]") {
    // from DejaVuSans.ttf: 'm' is 1995 units of 2048, 'i' 569, '0' 1303; at 2048 px a unit is a pixel
    CHECK(text_width("m", 2048) >= 1995);
    CHECK(text_width("m", 2048) < 1995 * 1.1);
    CHECK(text_width("iiii", 2048) == Approx(4 * text_width("i", 2048)));
    CHECK(text_width("copy_vectorized_fp32", 12) > text_width("copy_naive_fp32", 12));
    CHECK(text_width("\xc2\xb5s", 12) > text_width("s", 12));  // a two-byte character counts once, as an em
    CHECK(text_width("\xc2\xb5", 12) == Approx(12 * 1.05));
}

TEST_CASE("roof placement: the saved grade places a kernel where the score does", "[pictures]") {
    auto copy = score_fixture("scoring", "copy_fp32", 625e-6, 500e-6, "cudaMemcpy D2D");
    GradeContext context{"scoring/copy_fp32", "Test GPU", "labs", false};
    auto saved = score_json(context, copy, lab_result("ok", 625e-6, 500e-6));
    auto now = place_scored("copy_fp32", copy);
    auto later = place_graded("copy_fp32", saved);
    REQUIRE(later);
    CHECK(later->intensity == 0);
    CHECK(later->unit == "TB/s");
    CHECK(later->fraction() == Approx(now.fraction()));
    CHECK(later->fraction() == Approx(copy.fraction_of_roofline));
    // 2^31 bytes in 625 us is 3.436 TB/s, 71.6% of the test GPU's 4.8 TB/s
    CHECK(later->fraction() == Approx(2147483648.0 / 625e-6 / 4.8e12).epsilon(1e-6));
    CHECK(later->roof_origin == copy.ceiling_origin);

    saved["correct"] = false;
    CHECK_FALSE(place_graded("copy_fp32", saved));
    CHECK_FALSE(place_graded("copy_fp32", json::parse("{\"correct\": true}")));
}

TEST_CASE("roof placement: the datasheet bandwidth is a reference line only above a measured roof", "[pictures]") {
    MeasuredCeilings measured;
    measured.memcpy_tbs = 4.2;
    measured.copy_kernel_tbs = 3.95;
    measured.fp32_fma_tflops = 63.6;
    measured.gemm_tflops[Dtype::bf16] = 790;
    measured.measured_at = "2026-11-29";
    auto on_measured = memory_references(choose_ceiling(gpu, &measured, Dtype::fp32), gpu);
    REQUIRE(on_measured.size() == 1);
    CHECK(on_measured[0].fraction == Approx(4.8 / 4.2));
    CHECK(contains(on_measured[0].label, "datasheet 4.8 TB/s"));
    CHECK(memory_references(choose_ceiling(gpu, nullptr, Dtype::fp32), gpu).empty());
}

TEST_CASE("roofline picture: a zero-FLOP copy, a memory-bound add and compute-bound GEMMs at their roofs", "[pictures]") {
    const std::string long_name = "copy_vectorized_fp32_with_a_name_far_longer_than_any_legend_used_to_hold";
    auto copy = place_scored("copy_fp32", score_fixture("scoring", "copy_fp32", 625e-6, 500e-6, "cudaMemcpy D2D"));
    auto add = place_scored("add_fp32", score_fixture("scoring", "add_fp32", 900e-6, 800e-6, "cudaMemcpy D2D"));
    auto tensor = place_scored("tensor", score_fixture("gemm_rules", "tensor", 200e-6, 180e-6, "cuBLAS bf16"));
    auto naive = place_scored("naive", score_fixture("gemm_rules", "naive", 40e-3, 3e-3, "cuBLAS fp32"));
    // a copy at 94% of its memory roof, as issue 21's vectorized copy on the H200
    RoofPlacement near_roof{long_name, 0, copy.ridge, "TB/s", 0.94 * 4.197, 4.197, "measured cudaMemcpy D2D"};
    REQUIRE(copy.intensity == 0);
    REQUIRE(add.intensity > 0);
    REQUIRE(add.memory_bound());
    REQUIRE_FALSE(tensor.memory_bound());
    REQUIRE_FALSE(naive.memory_bound());
    REQUIRE(tensor.ridge != Approx(naive.ridge));  // bf16 and fp32: two ridges on one picture

    std::vector<RoofPlacement> marks{copy, add, tensor, naive, near_roof};
    Picture picture(roofline_svg("scoring and gemm fixtures on Test GPU", marks, {{"datasheet 4.8 TB/s", 4.8 / 4.197}}));
    keep_artifact("lab-roofline", picture.svg);
    picture.check_labels_fit();

    auto zero_column = picture.tags("rect", "zero-column");
    REQUIRE(zero_column.size() == 1);
    double zero_left = number_attribute(zero_column[0], "x");
    double zero_right = zero_left + number_attribute(zero_column[0], "width");
    auto plot = picture.tags("rect", "plot");
    REQUIRE(plot.size() == 1);
    double plot_left = number_attribute(plot[0], "x"), plot_right = plot_left + number_attribute(plot[0], "width");
    double plot_top = number_attribute(plot[0], "y"), plot_bottom = plot_top + number_attribute(plot[0], "height");
    for (const auto& m : marks) {
        INFO(m.label << " at " << m.fraction() << " of its roof");
        auto circle = picture.mark(m.label);
        CHECK(drawn_fraction(picture, circle) == Approx(m.fraction()).margin(0.005));
        double cx = number_attribute(circle, "cx"), cy = number_attribute(circle, "cy");
        CHECK(cy > plot_top);
        CHECK(cy < plot_bottom);
        if (m.intensity == 0) {
            CHECK(cx > zero_left);
            CHECK(cx < zero_right);
        } else {
            CHECK(cx > plot_left);
            CHECK(cx < plot_right);
        }
    }
    // the roof line is 100%, so the 94% copy sits a few pixels under it and well above the 71.6% one
    CHECK(drawn_fraction(picture, picture.mark(long_name)) == Approx(0.94).margin(0.005));

    // each ridge is drawn, and a kernel is left of its ridge exactly when its memory roof binds
    auto ridges = picture.tags("line", "ridge");
    CHECK(ridges.size() == 2);
    auto ridge_x = [&](double ridge) {
        std::smatch m;
        auto title = fmt::format("<title>ridge {:.3g} FLOP/B</title>", ridge);
        INFO("no ridge line titled " << title);
        REQUIRE(std::regex_search(picture.svg, m, std::regex("<line class='ridge'[^>]*>" + title)));
        return number_attribute(m.str(), "x1");
    };
    CHECK(number_attribute(picture.mark("add_fp32"), "cx") < ridge_x(add.ridge));
    CHECK(number_attribute(picture.mark("tensor"), "cx") > ridge_x(tensor.ridge));
    CHECK(number_attribute(picture.mark("naive"), "cx") > ridge_x(naive.ridge));

    // the datasheet bandwidth is a line above the roof; the legend says each point's rate and fraction
    auto references = picture.tags("line", "reference");
    REQUIRE(references.size() == 1);
    CHECK(number_attribute(references[0], "y1") < number_attribute(picture.tags("line", "roof")[0], "y1"));
    check_mentions(picture.svg, {fmt::format("= {:.1f}% of the memory roof", 100 * copy.fraction()),
                                 fmt::format("= {:.1f}% of the compute roof", 100 * tensor.fraction()),
                                 copy.roof_origin});
}

TEST_CASE("roofline picture: no marks, and a mark far above its roof, still fit", "[pictures]") {
    Picture empty(roofline_svg("nothing graded yet", {}));
    empty.check_labels_fit();
    CHECK(contains(empty.svg, "no correct graded variant yet"));

    RoofPlacement wild{"wild", 3, 13.96, "TB/s", 50, 4.8, "datasheet"};  // 10x its roof: drawn at the top edge
    Picture clamped(roofline_svg("one impossible point", {wild}));
    clamped.check_labels_fit();
    auto plot = clamped.tags("rect", "plot");
    REQUIRE(plot.size() == 1);
    CHECK(number_attribute(clamped.mark("wild"), "cy") == Approx(number_attribute(plot[0], "y")).margin(0.01));
}

TEST_CASE("scatter: one prediction graded twice is one colour, one legend entry; long names fit", "[pictures]") {
    const std::string long_name = "p12 01-memory-roof/copy_vectorized_fp32_with_a_name_far_longer_than_the_legend";
    std::vector<ScatterPoint> points{
        {"p1 01-memory-roof/copy_vectorized_fp32", 540e-6, 551e-6, {549e-6}},
        {"p2 01-memory-roof/add_fp32", 800e-6, 780e-6, {}},
        {long_name, 100e-6, 300e-6, {}},
    };
    Picture picture(prediction_scatter_svg("predicted against measured: predictions.yaml", points));
    keep_artifact("log-scatter", picture.svg);
    picture.check_labels_fit();
    CHECK(picture.tags("circle", "mark").size() == 3);
    auto rings = picture.tags("circle", "regrade");
    REQUIRE(rings.size() == 1);
    auto first = picture.mark("p1 01-memory-roof/copy_vectorized_fp32");
    CHECK(attribute(rings[0], "stroke") == attribute(first, "fill"));
    CHECK(number_attribute(rings[0], "cx") == Approx(number_attribute(first, "cx")));
    int legend_entries = 0;
    for (const auto& b : picture.labels) legend_entries += contains(b.text, "p1 01-memory-roof/copy_vectorized_fp32");
    CHECK(legend_entries == 1);
    CHECK(contains(picture.svg, "graded 2x; the first counts"));

    std::vector<ScatterPoint> many;
    for (int i = 1; i <= 45; ++i) {
        many.push_back({fmt::format("p{} 03-gemm/rung_{}_with_a_long_descriptive_name", i, i), i * 1e-4, i * 1.3e-4, {}});
    }
    Picture crowded(prediction_scatter_svg("45 predictions", many));
    crowded.check_labels_fit();
    CHECK(crowded.tags("circle", "mark").size() == 45);
    CHECK(contains(crowded.svg, "and 15 more"));
}

// ------------------------------------------------------------ the lessons' diagrams

namespace {

// Lesson 06's overlap timeline draws the CSV beside it: synthetic until the probe
// (scripts/probes/lab06_overlap_timeline.cu) has measured one; its "# source:" line says which.
OverlapTimeline lesson_overlap_timeline() {
    const auto file = fs::path(ROOFLINE_SOURCE_DIR) / "lessons" / "figures" / "overlap-timeline.csv";
    return read_overlap_timeline(read_file(file), file);
}

// The diagrams lessons/figures/ holds, each with the code that draws it.
std::vector<std::pair<std::string, std::string>> lesson_figures() {
    return {{"mbarrier-ring.svg", mbarrier_ring_svg(4)},
            {"warp-specialized-pipeline.svg", warp_specialized_pipeline_svg(4, 8, 2.5)},
            {"swizzle-bank-map.svg", swizzle_bank_map_svg(2)},
            {"coalescing.svg", coalescing_svg()},
            {"tmem-lanes.svg", tmem_lanes_svg(256, 1, 64)},
            {"tile-walk.svg", tile_walk_svg(8, 2)},
            {"warp-tile.svg", warp_tile_svg(9)},
            {"overlap-timeline.svg", overlap_timeline_svg(lesson_overlap_timeline(), 0)}};
}

// The MMA bars of consumer warpgroup 1, left to right: {x, width}.
std::vector<std::pair<double, double>> mma_bars(const Picture& picture) {
    std::vector<std::pair<double, double>> bars;
    for (const auto& tag : picture.tags("rect", "mma1")) {
        bars.emplace_back(number_attribute(tag, "x"), number_attribute(tag, "width"));
    }
    std::sort(bars.begin(), bars.end());
    return bars;
}

}  // namespace

TEST_CASE("lesson figures: every label fits, and the ring's parity table is the lesson's rule", "[pictures]") {
    for (const auto& [name, svg] : lesson_figures()) {
        INFO(name);
        Picture picture(svg);
        keep_artifact(name.substr(0, name.size() - 4), svg);
        picture.check_labels_fit();
    }
    // Tile 13 of a 6-stage ring: stage 1, parity 0 (lesson 06's checkpoint 2); the table runs to tile 13.
    Picture six(mbarrier_ring_svg(6));
    six.check_labels_fit();
    CHECK(contains(six.svg, "stage i % 6"));
    int tile13 = -1;
    for (std::size_t i = 0; i + 2 < six.labels.size(); ++i) {
        if (six.labels[i].text == "13") tile13 = int(i);
    }
    REQUIRE(tile13 >= 0);
    CHECK(six.labels[tile13 + 1].text == "1");
    CHECK(six.labels[tile13 + 2].text == "0");
}

TEST_CASE("lesson figures: a deep enough ring keeps the MMAs back to back; a shallow one makes them wait", "[pictures]") {
    // 4 stages and a copy of 2.5 slices: 3 copies in flight cover it, so after the first slice the MMAs never wait.
    Picture deep(warp_specialized_pipeline_svg(4, 8, 2.5));
    auto bars = mma_bars(deep);
    REQUIRE(bars.size() == 8);
    for (std::size_t k = 1; k < bars.size(); ++k) {
        INFO("slice " << k);
        CHECK(bars[k].first == Approx(bars[k - 1].first + bars[k - 1].second).margin(0.2));
    }
    // 2 stages: one copy in flight while a slice is read, so the MMAs stall 1.5 slices in every two
    // (slices 2, 4 and 6 wait for their copies).
    Picture shallow(warp_specialized_pipeline_svg(2, 8, 2.5));
    auto gaps = mma_bars(shallow);
    REQUIRE(gaps.size() == 8);
    int waits = 0;
    for (std::size_t k = 1; k < gaps.size(); ++k) waits += gaps[k].first > gaps[k - 1].first + gaps[k - 1].second + 1;
    CHECK(waits == 3);
}

TEST_CASE("lesson figures: the swizzle spreads a column of chunks over all 32 banks, no swizzle piles it on 4",
          "[pictures]") {
    for (int chunk = 0; chunk < 8; ++chunk) {
        INFO("chunk " << chunk);
        Picture picture(swizzle_bank_map_svg(chunk));
        picture.check_labels_fit();
        std::set<double> plain_columns, swizzled_columns;
        for (const auto& tag : picture.tags("rect", "plain")) plain_columns.insert(number_attribute(tag, "x"));
        for (const auto& tag : picture.tags("rect", "swizzled")) swizzled_columns.insert(number_attribute(tag, "x"));
        CHECK(picture.tags("rect", "plain").size() == 8);
        CHECK(plain_columns.size() == 1);     // one bank group, 8 times
        CHECK(picture.tags("rect", "swizzled").size() == 8);
        CHECK(swizzled_columns.size() == 8);  // 8 bank groups, once each
    }
}

TEST_CASE("lesson figures: rung 1's warp load spans 32 lines, rung 2's one", "[pictures]") {
    Picture picture(coalescing_svg());
    picture.check_labels_fit();
    std::set<double> rung1_lines, rung2_lines;  // a row of the picture is a 128-byte line
    for (const auto& tag : picture.tags("rect", "rung1")) rung1_lines.insert(number_attribute(tag, "y"));
    for (const auto& tag : picture.tags("rect", "rung2")) rung2_lines.insert(number_attribute(tag, "y"));
    CHECK(picture.tags("rect", "rung1").size() == 32);
    CHECK(picture.tags("rect", "rung2").size() == 32);
    CHECK(rung1_lines.size() == 32);
    CHECK(rung2_lines.size() == 1);
}

TEST_CASE("lesson figures: a warp's TMEM load lies in its own lane quarter, 32 columns wide", "[pictures]") {
    for (int warp = 0; warp < 8; ++warp) {
        INFO("warp " << warp);
        Picture picture(tmem_lanes_svg(256, warp, 96));
        picture.check_labels_fit();
        auto quarters = picture.tags("rect", "quarter");
        REQUIRE(quarters.size() == 4);
        const auto& own = quarters[warp % 4];
        auto load = picture.tags("rect", "load");
        REQUIRE(load.size() == 1);
        CHECK(number_attribute(load[0], "y") == Approx(number_attribute(own, "y")));
        CHECK(number_attribute(load[0], "height") == Approx(number_attribute(own, "height")));
        CHECK(number_attribute(load[0], "width") * 16 == Approx(number_attribute(own, "width")));  // 32 of 512 columns
        auto accumulator = picture.tags("rect", "accumulator");
        REQUIRE(accumulator.size() == 1);
        CHECK(number_attribute(accumulator[0], "width") * 2 == Approx(number_attribute(own, "width")));  // 256 of 512
    }
}

TEST_CASE("lesson figures: each step of the K walk takes the same k range of A and of B", "[pictures]") {
    for (int step = 0; step < 8; ++step) {
        INFO("step " << step);
        Picture picture(tile_walk_svg(8, step));
        picture.check_labels_fit();
        CHECK(picture.tags("rect", "a").size() + picture.tags("rect", "a-now").size() == 8);
        CHECK(picture.tags("rect", "b").size() + picture.tags("rect", "b-now").size() == 8);
        auto a_now = picture.tags("rect", "a-now"), b_now = picture.tags("rect", "b-now");
        REQUIRE(a_now.size() == 1);
        REQUIRE(b_now.size() == 1);
        // A's tiles step along x, B's along y, from the same origin: the same index k on both.
        double a_first = 1e9, b_first = 1e9;
        for (const auto& tag : picture.tags("rect", "a")) a_first = std::min(a_first, number_attribute(tag, "x"));
        for (const auto& tag : picture.tags("rect", "b")) b_first = std::min(b_first, number_attribute(tag, "y"));
        a_first = std::min(a_first, number_attribute(a_now[0], "x"));
        b_first = std::min(b_first, number_attribute(b_now[0], "y"));
        const double width = number_attribute(a_now[0], "width"), height = number_attribute(b_now[0], "height");
        CHECK((number_attribute(a_now[0], "x") - a_first) / width == Approx(step));
        CHECK((number_attribute(b_now[0], "y") - b_first) / height == Approx(step));
    }
}

TEST_CASE("lesson figures: each lane of the warp tile owns four pieces, and the lanes cover the tile once", "[pictures]") {
    std::set<std::pair<double, double>> covered;
    for (int lane = 0; lane < 32; ++lane) {
        INFO("lane " << lane);
        Picture picture(warp_tile_svg(lane));
        if (lane == 0) picture.check_labels_fit();
        auto mine = picture.tags("rect", "lane-piece");
        REQUIRE(mine.size() == 4);
        CHECK(picture.tags("rect", "piece").size() == 128 - 4);  // 32 x 64 in 4 x 4 pieces
        std::set<double> xs, ys;
        for (const auto& tag : mine) {
            xs.insert(number_attribute(tag, "x"));
            ys.insert(number_attribute(tag, "y"));
            CHECK(covered.insert({number_attribute(tag, "x"), number_attribute(tag, "y")}).second);
        }
        CHECK(xs.size() == 2);  // columns c and c + 32
        CHECK(ys.size() == 2);  // rows r and r + 16
        const double piece = number_attribute(mine[0], "width");
        CHECK((*xs.rbegin() - *xs.begin()) / piece == Approx(8));  // 32 columns apart
        CHECK((*ys.rbegin() - *ys.begin()) / piece == Approx(4));  // 16 rows apart
    }
    CHECK(covered.size() == 128);
}

namespace {

// One bar of the overlap timeline, read back from the SVG.
struct TimelineBar {
    std::string panel, lane, event;
    int tile, k;
    double x, width, y;
};

std::vector<TimelineBar> timeline_bars(const Picture& picture) {
    std::vector<TimelineBar> bars;
    for (const auto& tag : picture.tags("rect", "bar")) {
        bars.push_back({attribute(tag, "data-panel"), attribute(tag, "data-lane"), attribute(tag, "data-event"),
                        std::stoi(attribute(tag, "data-tile")), std::stoi(attribute(tag, "data-k")),
                        number_attribute(tag, "x"), number_attribute(tag, "width"), number_attribute(tag, "y")});
    }
    return bars;
}

std::vector<TimelineBar> bars_of(const std::vector<TimelineBar>& bars, const std::string& panel,
                                 const std::string& lane, const std::string& event = "") {
    std::vector<TimelineBar> out;
    for (const auto& b : bars) {
        if (b.panel == panel && b.lane == lane && (event.empty() || b.event == event)) out.push_back(b);
    }
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.x < b.x; });
    return out;
}

// What every overlap timeline must show, measured or synthetic: two panels of three lanes
// (producer, consumer 0, consumer 1, top to bottom, each on one row), no two bars of a lane
// overlapping, and each slice's steps in program order.
void check_timeline_drawing(const Picture& picture) {
    picture.check_labels_fit();
    const auto bars = timeline_bars(picture);
    REQUIRE(!bars.empty());
    double previous_panel_bottom = 0;
    for (const std::string panel : {"start", "steady"}) {
        double previous_lane_y = previous_panel_bottom;
        for (const std::string lane : {"producer", "consumer0", "consumer1"}) {
            INFO(panel << " panel, " << lane);
            const auto mine = bars_of(bars, panel, lane);
            REQUIRE(!mine.empty());
            for (const auto& b : mine) CHECK(b.y == Approx(mine[0].y));
            CHECK(mine[0].y > previous_lane_y);
            previous_lane_y = mine[0].y;
            for (std::size_t i = 1; i < mine.size(); ++i) {
                INFO(mine[i - 1].event << " " << mine[i - 1].k << " then " << mine[i].event << " " << mine[i].k);
                CHECK(mine[i - 1].x + mine[i - 1].width <= mine[i].x + 2e-3);  // x and width are each rounded to 1e-3
            }
            // Slice by slice: wait_empty before issue (producer); wait_full before mma_issue before
            // mma_wait (consumers).
            auto x_of = [&](const std::string& event, int tile, int k) {
                for (const auto& b : mine)
                    if (b.event == event && b.tile == tile && b.k == k) return b.x;
                return -1.0;
            };
            for (const auto& b : mine) {
                if (b.event == "issue" && x_of("wait_empty", b.tile, b.k) >= 0) {
                    CHECK(x_of("wait_empty", b.tile, b.k) <= b.x);
                }
                if (b.event == "mma_issue") {
                    if (x_of("wait_full", b.tile, b.k) >= 0) CHECK(x_of("wait_full", b.tile, b.k) <= b.x);
                    if (x_of("mma_wait", b.tile, b.k) >= 0) CHECK(x_of("mma_wait", b.tile, b.k) > b.x);
                }
            }
        }
        previous_panel_bottom = previous_lane_y;
    }
}

}  // namespace

TEST_CASE("lesson figures: the overlap timeline has three lanes per panel, bars in order, none overlapping",
          "[pictures][overlap]") {
    const auto file = fs::path(ROOFLINE_TEST_DATA) / "overlap" / "synthetic_timeline.csv";
    const auto timeline = read_overlap_timeline(read_file(file), file);
    for (int block : {0, 66}) {
        INFO("block " << block);
        Picture picture(overlap_timeline_svg(timeline, block));
        check_timeline_drawing(picture);
        CHECK(contains(picture.svg, "SYNTHETIC"));
        const auto bars = timeline_bars(picture);
        // The start: slices 0-11 of the first tile. Steady state: 6 slices either side of the change of tile.
        for (const std::string lane : {"consumer0", "consumer1"}) {
            INFO(lane);
            std::vector<std::pair<int, int>> start, steady, expected_start, expected_steady;
            for (const auto& b : bars_of(bars, "start", lane, "mma_issue")) start.emplace_back(b.tile, b.k);
            for (const auto& b : bars_of(bars, "steady", lane, "mma_issue")) steady.emplace_back(b.tile, b.k);
            for (int k = 0; k < 12; ++k) expected_start.emplace_back(0, k);
            for (int k = 10; k < 16; ++k) expected_steady.emplace_back(0, k);
            for (int k = 0; k < 6; ++k) expected_steady.emplace_back(1, k);
            CHECK(start == expected_start);
            CHECK(steady == expected_steady);
            const auto epilogue = bars_of(bars, "steady", lane, "epilogue");
            REQUIRE(epilogue.size() == 1);
            // In this schedule the producer has issued the next tile's first copies before the store ends,
            // and the last of the four as the store starts (its stage is the last one the MMAs free).
            int issued_before_store_ends = 0;
            for (const auto& b : bars_of(bars, "steady", "producer", "issue")) {
                issued_before_store_ends += b.tile == 1 && b.x < epilogue[0].x + epilogue[0].width;
            }
            CHECK(issued_before_store_ends == 4);
        }
        // Widths are durations on one scale: consumer 0's epilogue against its first wait for data.
        const auto rows = timeline.of(block, OverlapRole::consumer0);
        double epilogue_ns = 0, first_wait_ns = 0;
        for (const auto& r : rows) {
            if (r.event == OverlapEvent::epilogue && r.tile == 0) epilogue_ns = r.end_ns - r.begin_ns;
            if (r.event == OverlapEvent::wait_full && r.tile == 0 && r.k_slice == 0) first_wait_ns = r.end_ns - r.begin_ns;
        }
        const auto first_wait = bars_of(bars, "start", "consumer0", "wait_full");
        const auto epilogue = bars_of(bars, "steady", "consumer0", "epilogue");
        REQUIRE(!first_wait.empty());
        REQUIRE(epilogue.size() == 1);
        CHECK(epilogue[0].width / first_wait[0].width == Approx(epilogue_ns / first_wait_ns).epsilon(0.01));
    }
}

TEST_CASE("lesson figures: lesson 06's overlap timeline, whatever its data, draws as a timeline must",
          "[pictures][overlap]") {
    const auto timeline = lesson_overlap_timeline();
    INFO("lessons/figures/overlap-timeline.csv: " << timeline.source);
    check_timeline_drawing(Picture(overlap_timeline_svg(timeline, 0)));
    CHECK_THROWS_AS(overlap_timeline_svg(timeline, 12345), InputError);
}

TEST_CASE("lesson figures: the files in lessons/figures are the ones the code draws", "[pictures]") {
    // To redraw them after changing svg_lesson_figures.cpp:
    //   ROOFLINE_WRITE_FIGURES=1 build/grader/tests/roofline_cpu_tests "lesson figures*"
    auto dir = fs::path(ROOFLINE_SOURCE_DIR) / "lessons" / "figures";
    bool write = std::getenv("ROOFLINE_WRITE_FIGURES") != nullptr;
    for (const auto& [name, svg] : lesson_figures()) {
        if (write) write_file(dir / name, svg);
        INFO(name << " differs from what grader/lib/pages/svg_lesson_figures.cpp draws; redraw it with "
                     "ROOFLINE_WRITE_FIGURES=1 build/grader/tests/roofline_cpu_tests \"lesson figures*\"");
        REQUIRE(fs::exists(dir / name));
        CHECK(read_file(dir / name) == svg);
    }
}
