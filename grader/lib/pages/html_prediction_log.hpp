// The prediction log as a page section: every graded prediction's measured /
// predicted time in the order it was measured (a chart and a table), the
// calibration of all of them and of each half (calibration.hpp), and whether
// the gap is closing. Everything the student typed (the why) is escaped.
#pragma once
#include "prediction_log.hpp"

#include <string>

namespace roofline {

std::string prediction_log_section(const PredictionLog& log);

}  // namespace roofline
