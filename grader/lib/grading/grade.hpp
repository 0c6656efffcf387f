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
#include <functional>
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

// One pass of one variant's grading, as `request` says (grade_lab runs both passes).
GradeOutcome grade_variant(const Workspace& workspace, const GradeRequest& request);

// `roofline grade LAB/VARIANT`, `grade LAB --all` and `roofline run`: the variants of one lab,
// each through grade_variant, in two passes (GradeRequest, "Two passes"): first every variant
// timed, those that times_in_own_program says each in a fresh lab program of its own (before
// the shared program has timed anything), the rest in the shared one; then each graded from
// its timing, the watch jobs in the shared program, which never times again. A correctness-only
// run (`roofline run`) has the second pass only. The log is read once, before any lab program
// starts; one build serves every variant; a variant graded on the CPU (lab 05) is never timed
// and builds its own program. After no device or a failed build the rest would fail alike, so
// the grading stops there.
struct LabGradeRequest {
    std::string lab;
    std::vector<std::string> variants;  // in the order graded; empty: every variant of the lab
    GradeRequest shared;  // what every variant's grading shares (its lab, variant, context and sessions are set here)
};
struct GradedVariant {
    std::string lab, variant;
    GradeOutcome outcome;
};
struct LabGrade {
    std::vector<GradedVariant> graded;  // in order, up to the one that stopped the rest
    int exit_code = 0;                  // the worst of the variants' (0 only when all were 0)
};
// `on_graded` is called as each variant's grading ends (second pass), so that a caller can print
// while the rest are graded.
LabGrade grade_lab(const Workspace& workspace, const LabGradeRequest& request,
                   const std::function<void(const GradedVariant&)>& on_graded = {});

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
