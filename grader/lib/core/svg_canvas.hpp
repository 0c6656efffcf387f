// An SVG canvas that grows to hold its text: every label is placed through
// it, it estimates each label's box from the font's widths, and the finished
// document is as wide and tall as the furthest box plus a margin. The pictures
// in svg.cpp draw on it.
#pragma once
#include <string>

namespace roofline {

// The font every picture asks for. DejaVu Sans first because its widths are
// the ones text_width() knows (it is the sans-serif of Debian and Ubuntu);
// Verdana, the usual fallback elsewhere, is about as wide.
inline constexpr const char* kSvgFontFamily = "DejaVu Sans, Verdana, sans-serif";
// A line of text reaches this far above its baseline and below it, in ems (DejaVu Sans).
inline constexpr double kSvgAscent = 0.93, kSvgDescent = 0.24;

// &, <, >, ' and " as entities.
std::string svg_escape(const std::string& text);

// The drawn width in pixels of `text` at `font_px`, from DejaVu Sans's advance
// widths plus 5% for a slightly wider fallback font; a character outside ASCII
// counts as a full em. Never less than the true width in DejaVu Sans.
double text_width(const std::string& text, double font_px);

class SvgCanvas {
public:
    // Text with its baseline at y; anchor is start, middle or end.
    void text(double x, double y, const std::string& content, double font_px, const std::string& anchor = "start",
              const std::string& attributes = "");
    // Text turned a quarter to the left about (x, y): it reads upward from there.
    void text_upward(double x, double y, const std::string& content, double font_px,
                     const std::string& anchor = "start");
    // Any other element; `right` and `bottom` say how far it reaches.
    void element(const std::string& markup, double right, double bottom);
    // The document: width and height cover everything drawn plus `margin`, and at least the minimums.
    std::string finish(double min_width, double min_height, double margin = 12) const;

private:
    void reach(double right, double bottom);
    std::string body_;
    double right_ = 0, bottom_ = 0;
};

}  // namespace roofline
