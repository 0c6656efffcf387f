// Two charts as standalone SVG files: a lab's roofline with its graded
// variants as points, and the prediction log's predicted-against-measured
// scatter. Each canvas is sized to the text it carries (svg_canvas.hpp), so no
// label runs off its edge.
#pragma once
#include "roof_placement.hpp"

#include <string>
#include <vector>

namespace roofline {

// The convention of roof_placement.hpp: intensity across (log, with a column
// for 0 FLOP/byte), fraction of the binding roof up (linear, 100% = the roof),
// a dashed line at each ridge, `references` as lines on the memory side.
std::string roofline_svg(const std::string& title, const std::vector<RoofPlacement>& marks,
                         const std::vector<RoofReference>& references = {});

// One prediction: where its first measurement put it, and any later gradings
// of the same prediction (drawn as rings of the same colour; they do not count
// for calibration, see calibration.hpp).
struct ScatterPoint {
    std::string label;  // "p3 01-memory-roof/copy_vectorized_fp32"
    double predicted_s = 0;
    double measured_s = 0;
    std::vector<double> regraded_s;
};
// Log-log, with the y = x line and the 1.5x band around it.
std::string prediction_scatter_svg(const std::string& title, const std::vector<ScatterPoint>& points);

}  // namespace roofline
