#include "svg_canvas.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace roofline {

namespace {

// DejaVu Sans advance widths of ' ' .. '~' in font units (2048 to the em),
// read from DejaVuSans.ttf's hmtx table.
constexpr int kAsciiAdvance[95] = {
    651,  821,  942,  1716, 1303, 1946, 1597, 563,  799,  799,  1024, 1716, 651,  739,  651,  690,  1303, 1303, 1303,
    1303, 1303, 1303, 1303, 1303, 1303, 1303, 690,  690,  1716, 1716, 1716, 1087, 2048, 1401, 1405, 1430, 1577, 1294,
    1178, 1587, 1540, 604,  604,  1343, 1141, 1767, 1532, 1612, 1235, 1612, 1423, 1300, 1251, 1499, 1401, 2025, 1403,
    1251, 1403, 799,  690,  799,  1716, 1024, 1024, 1255, 1300, 1126, 1300, 1260, 721,  1300, 1298, 569,  569,  1186,
    569,  1995, 1298, 1253, 1300, 1300, 842,  1067, 803,  1298, 1212, 1675, 1212, 1212, 1075, 1303, 690,  1303, 1716};
constexpr double kUnitsPerEm = 2048;
constexpr double kFallbackMargin = 1.05;

// How far a text box reaches to the right of its anchor x, for each anchor.
double right_of_anchor(double width, const std::string& anchor) {
    return anchor == "end" ? 0 : anchor == "middle" ? width / 2 : width;
}

}  // namespace

std::string svg_escape(const std::string& text) {
    std::string out;
    for (char c : text) {
        if (c == '<') out += "&lt;";
        else if (c == '>') out += "&gt;";
        else if (c == '&') out += "&amp;";
        else if (c == '\'') out += "&apos;";
        else if (c == '"') out += "&quot;";
        else out += c;
    }
    return out;
}

double text_width(const std::string& text, double font_px) {
    double units = 0;
    for (unsigned char c : text) {
        if (c >= 32 && c < 127) units += kAsciiAdvance[c - 32];
        else if ((c & 0xC0) != 0x80) units += kUnitsPerEm;  // the first byte of a UTF-8 character (or a control)
    }
    return units / kUnitsPerEm * font_px * kFallbackMargin;
}

void SvgCanvas::text(double x, double y, const std::string& content, double font_px, const std::string& anchor,
                     const std::string& attributes) {
    body_ += fmt::format("<text x='{:.1f}' y='{:.1f}' font-size='{:g}' text-anchor='{}'{}{}>{}</text>\n", x, y, font_px,
                         anchor, attributes.empty() ? "" : " ", attributes, svg_escape(content));
    reach(x + right_of_anchor(text_width(content, font_px), anchor), y + kSvgDescent * font_px);
}

void SvgCanvas::text_upward(double x, double y, const std::string& content, double font_px, const std::string& anchor) {
    body_ += fmt::format("<text transform='translate({:.1f},{:.1f}) rotate(-90)' font-size='{:g}' text-anchor='{}'>{}</text>\n",
                         x, y, font_px, anchor, svg_escape(content));
    double width = text_width(content, font_px);
    // turned left, the text's "right" is up and its descent is to the right of x
    reach(x + kSvgDescent * font_px, y + (width - right_of_anchor(width, anchor)));
}

void SvgCanvas::element(const std::string& markup, double right, double bottom) {
    body_ += markup;
    reach(right, bottom);
}

void SvgCanvas::reach(double right, double bottom) {
    right_ = std::max(right_, right);
    bottom_ = std::max(bottom_, bottom);
}

std::string SvgCanvas::finish(double min_width, double min_height, double margin) const {
    double width = std::ceil(std::max(min_width, right_ + margin));
    double height = std::ceil(std::max(min_height, bottom_ + margin));
    return fmt::format("<svg xmlns='http://www.w3.org/2000/svg' width='{0:g}' height='{1:g}' viewBox='0 0 {0:g} {1:g}' "
                       "font-family='{2}' font-size='12'>\n<rect width='100%' height='100%' fill='white'/>\n{3}</svg>\n",
                       width, height, kSvgFontFamily, body_);
}

}  // namespace roofline
