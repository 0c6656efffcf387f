// Grading a CPU-graded variant (lab 05's layout library, lab.yaml `problem: layout`).
// Two programs, so that the verdict comes from a process the student's code never runs in:
//
//   the checker   roofline-PROBLEM-check (roofline-layout-check), the grader's own program,
//                 beside roofline: it makes the cases, computes the expected answers, asks
//                 the runner for the student's, compares, and writes the verdict file
//   the runner    lab-NN-name-cpu (cmake/RooflineCpuPart.cmake): the student's files and a
//                 query server that only answers; the checker starts it as its child, in
//                 the sandbox under `roofline batch`, where it sees neither the checker's
//                 folder nor its verdict file
//
// No GPU, no timing, no prediction: it works on a laptop and in CI. Correct earns the
// lab's correctness points; anything else earns 0 and names the first wrong index, the
// exception the code threw, or the case the runner crashed, hung or answered garbage on.
#pragma once
#include "grade_request.hpp"
#include "workspace.hpp"
#include "process.hpp"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <optional>
#include <string>

namespace roofline {

struct CpuVerdict {
    int exit_code = 0;     // kGradedCorrect, kGradedIncorrect or kCrashedOrTimedOut
    std::string outcome;   // correct, incorrect, threw, crashed (a bad reply too), hang, error
    std::string message;   // the report's body, one paragraph
};

// How the checker ended, its verdict file (nothing when it wrote none) and the end of its
// stderr: the verdict. A checker that wrote none is the grader's failure ("error"), never
// a pass; the runner's failures (crashed, hang, bad_reply) are in the verdict file.
CpuVerdict interpret_cpu_check(const ProcessResult& ended, const std::optional<nlohmann::json>& result,
                               const std::string& stderr_tail, double timeout_s);

// The checker program of a CPU-graded family: roofline-PROBLEM-check beside this program
// (else in the build it was configured in).
std::filesystem::path cpu_checker_program(const std::string& problem);

// Builds the runner and the checker (unless request.build is false), checks the variant's
// part, reports.
GradeOutcome grade_cpu_variant(const Workspace& workspace, const GradeRequest& request, const LabSpec& lab,
                               const VariantSpec& variant);

}  // namespace roofline
