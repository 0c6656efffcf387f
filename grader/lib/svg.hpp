// Two charts as standalone SVG files: a roofline with graded variants as
// points, and the prediction log's predicted-against-measured scatter.
#pragma once
#include "roofline.hpp"

#include <string>
#include <vector>

namespace roofline {

struct RooflineMark {
    std::string label;
    double intensity = 0;         // FLOP/byte; 0 for pure data movement (drawn at the left edge)
    double achieved_tflops = 0;   // for 0-FLOP work: bandwidth x the left-edge intensity
    double achieved_tbs = 0;
};

// Log-log axes; the roof is min(peak, bandwidth x intensity).
std::string roofline_svg(const std::string& title, const Ceiling& ceiling, const std::vector<RooflineMark>& marks);

struct ScatterPoint {
    std::string label;
    double predicted_s = 0;
    double measured_s = 0;
};
// Log-log, with the y = x line and the 1.5x band around it.
std::string prediction_scatter_svg(const std::string& title, const std::vector<ScatterPoint>& points);

}  // namespace roofline
