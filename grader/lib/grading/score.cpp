#include "score.hpp"

#include "profile_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace roofline {

PredictionScore score_prediction(const Prediction& prediction, double measured_s, Regime measured_regime,
                                 double max_points) {
    PredictionScore s;
    s.regime_right = prediction.regime == measured_regime;
    s.ratio = measured_s / prediction.predicted_time_s;
    double off = std::fabs(std::log2(s.ratio));  // 0 when exact; log2(1.5) = 0.585; log2(3) = 1.585
    double time_credit = std::clamp((std::log2(3.0) - off) / (std::log2(3.0) - std::log2(1.5)), 0.0, 1.0);
    s.points = max_points * (0.5 * (s.regime_right ? 1 : 0) + 0.5 * time_credit);
    s.verdict = fmt::format("measured {:.2f}x your prediction; regime {}", s.ratio,
                            s.regime_right ? "right" : fmt::format("wrong (you said {}, it is {})",
                                                                   regime_name(prediction.regime),
                                                                   regime_name(measured_regime)));
    return s;
}

std::string also_measured_line(const AlsoMeasured& a, const std::string& unit) {
    if (a.same_work())
        return fmt::format("  also      {}: {:.4g} {}; yours is {:.1f}% of it (not scored)\n", a.name, a.achieved, unit,
                           100 * a.speedup);
    // Compute-bound (lab 04's GEMM against the given three kernels): the time does not follow the
    // bytes, so their ratio predicts nothing; the extra bytes are shown as they are.
    if (unit == "TFLOP/s") {
        const double variant_bytes = a.work.bytes / a.bytes_speedup;
        return fmt::format("  also      {}: {:.4g} us; yours is {:.2f}x faster; it moves {:.4g} MB more than yours "
                           "(not scored)\n",
                           a.name, a.timing.median_s * 1e6, a.speedup, (a.work.bytes - variant_bytes) / 1e6);
    }
    return fmt::format("  also      {}: {:.4g} us ({:.4g} {} on its own bytes); yours is {:.2f}x faster, the bytes "
                       "predict {:.2f}x (not scored)\n",
                       a.name, a.timing.median_s * 1e6, a.achieved, unit, a.speedup, a.bytes_speedup);
}

BytePredictionScore score_byte_prediction(const Prediction& prediction, const ProfileEntry* counted,
                                          const std::string& target, double max_points) {
    BytePredictionScore s;
    if (!prediction.predicted_dram_bytes) {
        s.verdict = fmt::format("no byte prediction: predict again with --bytes B (the DRAM bytes you expect), "
                                "profile it (roofline profile {}), then grade", target);
        return s;
    }
    if (!counted) {
        s.verdict = fmt::format("your {:.4g} bytes are not counted yet: roofline profile {}, then grade again",
                                *prediction.predicted_dram_bytes, target);
        return s;
    }
    s.ratio = counted->dram_bytes / *prediction.predicted_dram_bytes;
    bool close = std::fabs(s.ratio - 1) <= kBytePredictionTolerance;
    s.points = close ? max_points : 0;
    s.verdict = fmt::format("ncu counted {:.4g} DRAM bytes, {:.2f}x your {:.4g}: {}", counted->dram_bytes, s.ratio,
                            *prediction.predicted_dram_bytes, close ? "within 10%" : "more than 10% off");
    return s;
}

Score score_run(const LabSpec& lab, const VariantSpec& variant, const protocol::Result& result,
                const HardwareProfile& datasheet, const CeilingChoice& ceiling, const Prediction* prediction,
                std::optional<Regime> sweep_regime, const ProfileEntry* profiled) {
    Score s;
    s.max_points = lab.scoring.total();
    s.correct = result.status == protocol::JobStatus::ok;
    if (!result.timing) throw std::invalid_argument("score_run: the answer of " + result.variant + " has no timing");
    const auto& timing = *result.timing;
    s.variant = timing.variant;
    s.peer = timing.peer;
    s.peer_name = timing.peer_name;
    s.sm_clock_mhz = timing.sm_clock_mhz.median;
    s.sm_clock_min_mhz = timing.sm_clock_mhz.min;
    s.sm_clock_max_mhz = timing.sm_clock_mhz.max;

    s.work = lab.work(variant, variant.timed);
    s.unfused = lab.unfused_work(variant, variant.timed);
    auto peer_work = lab.peer_work(variant, variant.timed);
    s.roofline = analyze(s.work, ceiling.ceiling, ceiling.launch_overhead_s);
    bool memory_bound = s.roofline.regime != Regime::compute;
    s.unit = memory_bound ? "TB/s" : "TFLOP/s";
    auto rate = [&](const Workload& w, double t) { return (memory_bound ? w.bytes : w.flops) / t / 1e12; };
    s.achieved = rate(s.work, s.variant.median_s);
    s.peer_achieved = rate(peer_work, s.peer.median_s);  // 0 when the peer does none of this unit's work
    s.attainable = memory_bound ? ceiling.ceiling.bandwidth_tbs : s.roofline.attainable_tflops;
    s.fraction_of_peer = s.peer_achieved > 0 ? s.achieved / s.peer_achieved : 0;
    s.fraction_of_roofline = s.achieved / s.attainable;
    auto also_work = lab.also_work(variant, variant.timed);
    if (also_work && timing.also_measured) {
        AlsoMeasured a{.name = timing.also_measured->name, .timing = timing.also_measured->stats, .work = *also_work};
        a.achieved = rate(a.work, a.timing.median_s);
        a.speedup = a.timing.median_s / s.variant.median_s;
        a.bytes_speedup = a.work.bytes / s.work.bytes;
        s.also = a;
    }
    if (!variant.instruction_roof.empty()) {
        s.instruction_roof = instruction_roof_for(variant.instruction_roof, ceiling.measured ? &*ceiling.measured : nullptr,
                                                  s.work.flops / s.variant.median_s / 1e12);
    }
    s.ceiling_origin = memory_bound ? ceiling.bandwidth_origin : ceiling.peak_origin;
    if (variant.against == "peer") {
        s.fraction = s.fraction_of_peer;
        s.scored_against = fmt::format("{} ({}), same run", s.peer_name, s.unit);
    } else {
        s.fraction = s.fraction_of_roofline;
        s.scored_against = fmt::format("roofline: {}", s.ceiling_origin);
    }
    // A time below the datasheet floor means the work was not done (or not all of it).
    s.physical_floor_s = analyze(s.work, datasheet.datasheet_ceiling(variant.dtype)).floor_s;
    s.impossible = s.variant.median_s < 0.97 * s.physical_floor_s;
    s.measured_regime = sweep_regime                                      ? *sweep_regime
                        : s.variant.median_s < 2 * ceiling.launch_overhead_s ? Regime::overhead
                        : memory_bound                                   ? Regime::memory
                                                                         : Regime::compute;

    if (s.impossible) {
        s.correct = false;
        s.verdict = fmt::format("rejected: {:.4g} us is below the physical floor of {:.4g} us for this work "
                                "(a kernel that skips work or replays an answer)",
                                s.variant.median_s * 1e6, s.physical_floor_s * 1e6);
    } else {
        s.verdict = s.correct ? "correct" : "incorrect";
    }
    if (s.correct) {
        s.correctness_points = lab.scoring.correctness;
        double span = variant.target_fraction - variant.floor_fraction;
        s.performance_points =
            lab.scoring.performance * std::clamp((s.fraction - variant.floor_fraction) / span, 0.0, 1.0);
        if (prediction) {
            s.prediction = score_prediction(*prediction, s.variant.median_s, s.measured_regime, lab.scoring.prediction);
            s.prediction_points = s.prediction->points;
            if (lab.scoring.byte_prediction > 0) {
                s.byte_prediction = score_byte_prediction(*prediction, profiled, lab.id + "/" + variant.name,
                                                          lab.scoring.byte_prediction);
                s.byte_prediction_points = s.byte_prediction->points;
            }
        }
    }
    return s;
}

}  // namespace roofline
