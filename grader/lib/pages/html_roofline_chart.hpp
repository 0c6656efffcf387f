// Graded kernels on a roofline, as inline SVG for the HTML reports, with the
// numbers again in a table under it. The picture convention is the lab
// picture's (roof_placement.hpp): intensity across on a log axis with a column
// for 0 FLOP/byte, the fraction of the binding roof up, 100% the roof. Each
// point may carry its prediction: a hollow mark at the same intensity, where
// the predicted time would have put it, joined to the measured one. Hovering a
// mark shows its figures (an SVG <title>); groups differ in shape as well as
// colour, so the chart reads in black and white.
#pragma once
#include "roof_placement.hpp"

#include <optional>
#include <string>
#include <vector>

namespace roofline {

struct ChartPoint {
    RoofPlacement placement;                   // where the measurement puts it
    std::optional<double> predicted_fraction;  // where the prediction would have (same roof)
    std::string group;                         // legend entry: a lab, a submission
};

// The predicted fraction from a saved grade: its achieved rate scaled by
// measured / predicted time (the grade's prediction ratio); nothing without one.
std::optional<double> predicted_fraction(const RoofPlacement& placement, const nlohmann::json& grade);

// `title` and every label are plain text (escaped here).
std::string roofline_chart_html(const std::string& title, const std::vector<ChartPoint>& points);
// The same points as a table: group, kernel, intensity, achieved, roof, fraction, predicted.
std::string roofline_table_html(const std::string& caption, const std::vector<ChartPoint>& points);

}  // namespace roofline
