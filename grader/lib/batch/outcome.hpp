// What became of one submission in `roofline batch`, named with the words the
// gradebook and the summary use. One submission has one outcome: the worst of
// its variants' (a crash outranks a wrong answer), and, when every kernel was
// graded, what was wrong with its prediction log, if anything.
#pragma once
#include "grade_outcome.hpp"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace roofline::batch {

// In order of seriousness, least first: a submission's word is the worst of its variants'.
// no_gpu ranks below every failure a variant can have on its own, so that on a machine with no
// GPU the failures of the parts graded on the CPU (lab 05) stay in the outcome column.
enum class SubmissionOutcome {
    graded,                 // every variant verified, timed and scored
    no_predictions,         // graded, but predictions.yaml is missing: no prediction points
    malformed_predictions,  // graded, but predictions.yaml does not parse: no prediction points
    no_gpu,                 // built, but there is no CUDA device (or none of the kind it needs) to grade on
    wrong_answer,           // a variant failed verification
    timing_refused,         // a variant's timed launches did less than its watched ones, or the clocks disagree
    forbidden_call,         // a variant's timed work was not its own (a library, a foreign kernel)
    forbidden_symbol,       // a kernel file defines a symbol the runtime, a library or the harness defines
    crash,                  // a variant died (a signal, a limit, an exit), raised a CUDA error, or left no result
    hang,                   // a variant (or the whole grading) ran past its timeout
    error,                  // the grader itself failed (bad input, missing files)
    compile_error,          // nvcc rejected the submission's kernels
    unsafe_entry,           // staging refused an entry (a link, a device, a fifo): nothing was graded
};

// Every submission outcome with what it means, in the enum's order: the one table that
// `roofline batch --help`, the gradebook, the summary and the reports take their words from.
struct SubmissionOutcomeRow {
    SubmissionOutcome outcome;
    const char* name;
    const char* meaning;
};
const std::vector<SubmissionOutcomeRow>& submission_outcomes();

// `roofline batch --help`'s list of outcomes, one per line, from the table.
std::string submission_outcomes_help();

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
