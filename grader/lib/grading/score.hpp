// Turns a lab run's timing into rates, fractions and points (grader/README.md, step 8).
// The fraction is in the unit of the scarce resource: TB/s for a memory-bound
// workload, TFLOP/s for a compute-bound one. lab.yaml chooses what it is a
// fraction of: the peer timed in the same run (cudaMemcpy, cuBLAS) or the
// roofline ceiling.
#pragma once
#include "diagnosis_score.hpp"
#include "hardware.hpp"
#include "instruction_roof.hpp"
#include "lab_result.hpp"
#include "lab_spec.hpp"
#include "prediction_log.hpp"

#include <optional>
#include <string>

namespace roofline {

// One timed target's statistics, as the lab program measured them.
using TimingSummary = protocol::TimingStats;

struct PredictionScore {
    bool regime_right = false;
    double ratio = 0;  // measured time / predicted time
    double points = 0;
    std::string verdict;
};

// Points for a prediction: half for the regime, half for the time: full within
// 1.5x, none beyond 3x, and in between linear in log2 of the ratio.
PredictionScore score_prediction(const Prediction& prediction, double measured_s, Regime measured_regime,
                                 double max_points);

// A second run timed in the same run as the variant and its peer, shown beside
// them and never scored (lab 09: cuBLAS's GEMV beside cudaMemcpy; for the int8 and fp8
// GEMVs, cuBLAS's bf16 GEMV of the same shape, whose bytes say what quantizing buys;
// lab 04: the given three kernels beside a GEMM + bias + GELU, the fused/unfused ratio).
struct AlsoMeasured {
    std::string name;
    TimingSummary timing;
    Workload work;              // what it does
    double achieved = 0;        // on its own work, in the score's unit
    double speedup = 0;         // its time over the variant's: above 1 when the variant is faster
    double bytes_speedup = 0;   // its bytes over the variant's: the speedup reading fewer bytes predicts
    bool same_work() const { return work.bytes > 0 && bytes_speedup > 0.999 && bytes_speedup < 1.001; }
};

// The report's line for it: the fraction of its rate when it does the same work, else the
// measured speedup beside the one the bytes predict (memory-bound) or beside the extra bytes
// it moves (compute-bound, where bytes predict no speedup).
std::string also_measured_line(const AlsoMeasured& also, const std::string& unit);

// Points for a DRAM byte prediction (`predict --bytes`) against what ncu counted for that
// prediction at its first profile (`roofline profile`): all of them within 10% either way
// (kBytePredictionTolerance), none beyond. `counted` is null when the prediction has not
// been profiled; a prediction with no byte figure earns nothing either; both say why.
struct BytePredictionScore {
    double ratio = 0;  // counted / predicted; 0 when there is nothing to compare
    double points = 0;
    std::string verdict;
};
BytePredictionScore score_byte_prediction(const Prediction& prediction, const ProfileEntry* counted,
                                          const std::string& target, double max_points);

struct Score {
    bool correct = false;
    bool impossible = false;  // faster than the datasheet allows: the work was not done
    std::string verdict;      // one line
    Workload work;
    TimingSummary variant, peer;
    std::string peer_name;
    double sm_clock_mhz = 0, sm_clock_min_mhz = 0, sm_clock_max_mhz = 0;

    RooflinePoint roofline;       // of the workload under the ceiling used
    Regime measured_regime = Regime::memory;
    std::string unit;             // "TB/s" or "TFLOP/s"
    double achieved = 0;          // in `unit`
    double peer_achieved = 0;     // in `unit`
    double attainable = 0;        // the roofline's, in `unit`
    double fraction_of_peer = 0;
    double fraction_of_roofline = 0;
    double fraction = 0;          // the one scored
    std::string scored_against;
    std::string ceiling_origin;
    double physical_floor_s = 0;  // from the datasheet
    std::optional<Workload> unfused;  // fusion labs: what the unfused chain moves
    std::optional<AlsoMeasured> also;  // a second library run beside the peer, not scored
    std::optional<InstructionRoof> instruction_roof;  // lab.yaml's `instruction_roof`, not scored

    double correctness_points = 0, performance_points = 0, prediction_points = 0, byte_prediction_points = 0;
    double diagnosis_points = 0;
    double max_points = 0;
    double total() const {
        return correctness_points + performance_points + prediction_points + byte_prediction_points + diagnosis_points;
    }
    std::optional<PredictionScore> prediction;
    std::optional<BytePredictionScore> byte_prediction;  // only in a lab that scores byte predictions
    std::optional<DiagnosisScore> diagnosis;              // only in a lab that scores diagnoses (grade sets it)
};

// `result` is the lab executable's answer to a grade job (with its timing; without it,
// std::invalid_argument); `sweep_regime`, when given, is the
// regime classified from a size sweep (lab 00) and replaces the roofline's.
// `profiled` is the prediction's first profile, if any (byte_calibration.hpp
// first_profile_of); it is read only where lab.yaml gives byte predictions points.
Score score_run(const LabSpec& lab, const VariantSpec& variant, const protocol::Result& result,
                const HardwareProfile& datasheet, const CeilingChoice& ceiling, const Prediction* prediction,
                std::optional<Regime> sweep_regime = std::nullopt, const ProfileEntry* profiled = nullptr);

}  // namespace roofline
