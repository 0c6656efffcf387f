#include "byte_calibration.hpp"

#include "profile_report.hpp"

#include <algorithm>
#include <cmath>

namespace roofline {

const ProfileEntry* first_profile_of(const PredictionLog& log, const Prediction& prediction) {
    for (const auto& entry : log.profiles) {
        if (entry.prediction_id == prediction.id) return &entry;
    }
    return nullptr;
}

std::vector<ProfiledPrediction> profiled_predictions(const PredictionLog& log) {
    std::vector<ProfiledPrediction> out;
    for (const auto& entry : log.profiles) {
        if (entry.prediction_id.empty()) continue;
        const auto* p = log.find_by_id(entry.prediction_id);
        if (!p || !p->predicted_dram_bytes) continue;
        bool seen = std::any_of(out.begin(), out.end(), [&](const auto& x) { return x.prediction == p; });
        if (!seen) out.push_back({p, &entry});
    }
    return out;
}

ByteCalibration byte_calibration(const std::vector<ProfiledPrediction>& profiled) {
    ByteCalibration c;
    c.count = static_cast<int>(profiled.size());
    if (c.count == 0) return c;
    std::vector<double> errors;
    int close = 0;
    for (const auto& p : profiled) {
        errors.push_back(std::abs(std::log2(p.ratio())));
        close += std::abs(p.ratio() - 1) <= kBytePredictionTolerance;
    }
    std::sort(errors.begin(), errors.end());
    auto n = errors.size();
    c.median_abs_log2 = n % 2 ? errors[n / 2] : (errors[n / 2 - 1] + errors[n / 2]) / 2;
    c.share_within_10pct = double(close) / n;
    return c;
}

}  // namespace roofline
