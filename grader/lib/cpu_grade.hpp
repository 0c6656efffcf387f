// Grading a CPU-graded variant (lab 09's layout library, lab.yaml `problem: layout`):
// the lab's CPU program (lab-NN-name-cpu, cmake/RooflineCpuPart.cmake) checks one part
// of the student's code against the definitions on many cases. No GPU, no timing, no
// prediction: it works on a laptop and in CI. Correct earns the lab's correctness
// points; anything else earns 0 and names the first wrong index, the exception the
// code threw, or the case it crashed on.
#pragma once
#include "grade.hpp"
#include "process.hpp"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>

namespace roofline {

struct CpuVerdict {
    int exit_code = 0;     // kGradedCorrect, kGradedIncorrect or kCrashedOrTimedOut
    std::string outcome;   // correct, incorrect, threw, crashed, hang, error
    std::string message;   // the report's body, one paragraph
};

// How the CPU program ended, its result file (nothing when it wrote none) and the end of
// its stderr (the last `roofline-stage:` line names the case a crash happened on): the verdict.
CpuVerdict interpret_cpu_check(const ProcessResult& ended, const std::optional<nlohmann::json>& result,
                               const std::string& stderr_tail, double timeout_s);

// Builds the CPU program (unless request.build is false), runs the variant's part, reports.
GradeOutcome grade_cpu_variant(const Workspace& workspace, const GradeRequest& request, const LabSpec& lab,
                               const VariantSpec& variant);

}  // namespace roofline
