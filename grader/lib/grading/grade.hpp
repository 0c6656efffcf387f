// `roofline grade` and `roofline run`, stage by stage (grader/README.md, "One `roofline grade`"):
// load, prediction gate, build (so a compile error shows even without a GPU),
// device check, run, verify and measure (in the lab program), score, record
// and report.
#pragma once
#include "grade_request.hpp"
#include "hardware.hpp"
#include "lab_spec.hpp"
#include "prediction_log.hpp"
#include "workspace.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace roofline {

// lab.yaml and the hardware profiles, once for every variant of a lab.
LabContext load_lab_context(const Workspace& workspace, const std::string& lab_id);

// The prediction gate alone: the prediction for this variant's current source
// and timed shape, or an InputError-free refusal whose text is the exact
// `roofline predict` command to run.
struct GateResult {
    const Prediction* prediction = nullptr;
    std::string refusal;
    bool edited = false;
};
GateResult check_prediction(const PredictionLog& log, const LabSpec& lab, const VariantSpec& variant,
                            const std::string& source_hash, const std::string& log_flag);

GradeOutcome grade_variant(const Workspace& workspace, const GradeRequest& request);

// Whether `roofline grade`'s first pass times this variant in a fresh lab program of its own
// rather than in the one the lab's other variants share: a variant whose work sits in the
// overhead regime (both floors under one launch's cost) on any GPU in hardware/, where what the
// program ran before shows in the time. Lab 00's graph rung read 662-674 us after the other
// variants in one program and 488 us in its own (H200, runs 36-39, CUPTI nowhere near it); the
// memory- and compute-bound rungs kept their fractions within 2 points. Decided before the build
// and before any GPU is asked (the fastest profile gives the smallest floors); with no profiles,
// every variant. A fresh program costs ~0.3 s of driver start-up (lab_session.hpp): hence not all.
bool times_in_own_program(const LabSpec& lab, const VariantSpec& variant, const std::vector<HardwareProfile>& profiles);

}  // namespace roofline
