// What became of one submission in `roofline batch`, named with the words the
// gradebook and the summary use. One submission has one outcome: the worst of
// its variants' (a crash outranks a wrong answer), and, when every kernel was
// graded, what was wrong with its prediction log, if anything.
#pragma once
#include "grade_outcome.hpp"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>

namespace roofline::batch {

enum class SubmissionOutcome {
    graded,                 // every variant verified, timed and scored
    no_predictions,         // graded, but predictions.yaml is missing: no prediction points
    malformed_predictions,  // graded, but predictions.yaml does not parse: no prediction points
    wrong_answer,           // a variant failed verification
    forbidden_call,         // a variant's timed work was not its own (a library, a foreign kernel)
    forbidden_symbol,       // a kernel file defines a symbol the runtime, a library or the harness defines
    crash,                  // a variant crashed (signal, CUDA error, no result)
    hang,                   // a variant (or the whole grading) ran past its timeout
    no_gpu,                 // built, but there is no CUDA device to grade on
    error,                  // the grader itself failed (bad input, missing files)
    compile_error,          // nvcc rejected the submission's kernels
};

std::string outcome_name(SubmissionOutcome outcome);
std::optional<SubmissionOutcome> parse_submission_outcome(const std::string& name);
// The more serious of the two (the order of the enum).
SubmissionOutcome worse(SubmissionOutcome a, SubmissionOutcome b);

// The submission's word for one variant's outcome (grade_outcome.hpp): one table, so a new way a
// grading can end must be given its word here (the switch warns when one is missing).
SubmissionOutcome submission_word(roofline::Outcome variant);

// One variant's object from `roofline grade --all --json`: its "outcome", through submission_word.
SubmissionOutcome variant_outcome(const nlohmann::json& variant);

}  // namespace roofline::batch
