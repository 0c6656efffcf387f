// How well a student's predictions match their measurements, and whether that
// is getting better. A prediction counts once, at its first measurement: it
// was a guess until then, and grading the same prediction again (same kernel,
// same guess) only measures the GPU's noise, so it neither helps nor hurts
// calibration. Later gradings are kept and listed, not counted.
#pragma once
#include "prediction_log.hpp"

#include <optional>
#include <string_view>
#include <vector>

namespace roofline {

struct GradedPrediction {
    const Prediction* prediction = nullptr;
    const Measurement* first = nullptr;          // the one that counts
    std::vector<const Measurement*> regradings;  // later measurements of the same prediction
    double ratio() const { return first->measured_time_s / prediction->predicted_time_s; }  // measured / predicted
};

// Every measured prediction, in the order of its first measurement; measurements
// that name no prediction in the log are skipped.
std::vector<GradedPrediction> graded_predictions(const PredictionLog& log);

// The one rule for what calibration counts, used by `roofline log` and the report:
// the graded predictions, less those edited after they were measured (an edited
// guess was written after the answer was known, so it says nothing about calibration).
struct CountedPredictions {
    std::vector<GradedPrediction> counted;  // in the order of their first measurement
    int edited_left_out = 0;
};
CountedPredictions counted_predictions(const PredictionLog& log);

struct Calibration {
    int count = 0;
    double median_abs_log2 = 0;  // 0 is perfect; 0.585 is off by 1.5x
    double share_within_1_5x = 0;
};
Calibration calibrate(const std::vector<double>& ratios);

// Whether the second half of the graded predictions is closer than the first.
// Medians of |log2 error| that differ by less than log2(1.1) (1.10x against
// 1.00x, 1.65x against 1.50x) are the same within noise: re-running a memory-
// bound kernel moves its time by a few percent, and one lucky guess more or
// less moves a small half's median by as much.
enum class Trend { closing, unchanged, widening };
inline constexpr double kTrendNoiseLog2 = 0.1375;  // log2(1.1)
std::string_view trend_name(Trend trend);

struct CalibrationOverTime {
    Calibration all, first_half, second_half;
    std::optional<Trend> trend;  // none until both halves have an entry
};
CalibrationOverTime calibration_over_time(const std::vector<GradedPrediction>& graded);

}  // namespace roofline
