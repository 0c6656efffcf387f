// `roofline report`: the student's course in one HTML page. The calculator
// (html_calculator.hpp); every graded variant of every lab on the roofline of
// the GPU it ran on, its prediction beside it (html_roofline_chart.hpp); the
// prediction log and its calibration over time (html_prediction_log.hpp); and
// each lab's state: variants graded, points, what is left. Read from the
// course's saved grades (.roofline/results/LAB/labs/VARIANT.json) and the
// prediction log; nothing is measured or written besides the page.
#pragma once
#include "workspace.hpp"

#include <filesystem>
#include <string>

namespace roofline {

std::string student_report_html(const Workspace& ws, const std::filesystem::path& log_file);

}  // namespace roofline
