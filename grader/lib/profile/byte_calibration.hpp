// How well a student's DRAM byte predictions (`predict --bytes`) match what ncu counted
// (`roofline profile`), beside the time calibration of calibration.hpp. A prediction
// counts once, at its first profile, as a time prediction counts at its first grading.
#pragma once
#include "prediction_log.hpp"

#include <vector>

namespace roofline {

struct ProfiledPrediction {
    const Prediction* prediction = nullptr;
    const ProfileEntry* first = nullptr;
    double ratio() const { return first->dram_bytes / *prediction->predicted_dram_bytes; }  // counted / predicted
};

// The first profile bound to `prediction` (the one its byte points are scored on), or null.
const ProfileEntry* first_profile_of(const PredictionLog& log, const Prediction& prediction);

// Every prediction with a byte figure and a profile naming it, in the order of that profile.
std::vector<ProfiledPrediction> profiled_predictions(const PredictionLog& log);

struct ByteCalibration {
    int count = 0;
    double median_abs_log2 = 0;     // 0 is perfect
    double share_within_10pct = 0;  // what earns the byte points
};
ByteCalibration byte_calibration(const std::vector<ProfiledPrediction>& profiled);

}  // namespace roofline
