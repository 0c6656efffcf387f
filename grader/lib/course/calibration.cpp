#include "calibration.hpp"

#include <algorithm>
#include <cmath>

namespace roofline {

std::vector<GradedPrediction> graded_predictions(const PredictionLog& log) {
    std::vector<GradedPrediction> graded;
    for (const auto& m : log.measurements) {
        const auto* p = log.find_by_id(m.prediction_id);
        if (!p) continue;
        auto seen = std::find_if(graded.begin(), graded.end(), [&](const auto& g) { return g.prediction == p; });
        if (seen == graded.end()) graded.push_back({p, &m, {}});
        else seen->regradings.push_back(&m);
    }
    return graded;
}

CountedPredictions counted_predictions(const PredictionLog& log) {
    CountedPredictions out;
    for (const auto& g : graded_predictions(log)) {
        if (log.edited_after_measurement(*g.prediction)) ++out.edited_left_out;
        else out.counted.push_back(g);
    }
    return out;
}

Calibration calibrate(const std::vector<double>& ratios) {
    Calibration c;
    c.count = static_cast<int>(ratios.size());
    if (ratios.empty()) return c;
    std::vector<double> errors;
    int within = 0;
    for (double r : ratios) {
        errors.push_back(std::fabs(std::log2(r)));
        within += r <= 1.5 && r >= 1 / 1.5;
    }
    std::sort(errors.begin(), errors.end());
    auto n = errors.size();
    c.median_abs_log2 = n % 2 ? errors[n / 2] : (errors[n / 2 - 1] + errors[n / 2]) / 2;
    c.share_within_1_5x = double(within) / n;
    return c;
}

std::string_view trend_name(Trend trend) {
    switch (trend) {
        case Trend::closing: return "closing";
        case Trend::unchanged: return "unchanged";
        case Trend::widening: return "widening";
    }
    return "unchanged";
}

CalibrationOverTime calibration_over_time(const std::vector<GradedPrediction>& graded) {
    std::vector<double> ratios;
    for (const auto& g : graded) ratios.push_back(g.ratio());
    CalibrationOverTime c;
    c.all = calibrate(ratios);
    auto half = ratios.begin() + static_cast<std::ptrdiff_t>(ratios.size() / 2);
    c.first_half = calibrate({ratios.begin(), half});
    c.second_half = calibrate({half, ratios.end()});
    if (c.first_half.count > 0 && c.second_half.count > 0) {
        double change = c.second_half.median_abs_log2 - c.first_half.median_abs_log2;
        c.trend = change < -kTrendNoiseLog2 ? Trend::closing : change > kTrendNoiseLog2 ? Trend::widening : Trend::unchanged;
    }
    return c;
}

}  // namespace roofline
