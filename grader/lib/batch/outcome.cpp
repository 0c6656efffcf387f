#include "outcome.hpp"
#include "grade_outcome.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace roofline::batch {

const std::vector<SubmissionOutcomeRow>& submission_outcomes() {
    using S = SubmissionOutcome;
    static const std::vector<SubmissionOutcomeRow> rows{
        {S::graded, "graded", "every variant verified, timed and scored"},
        {S::no_predictions, "no_predictions", "graded, but no predictions.yaml: no prediction points"},
        {S::malformed_predictions, "malformed_predictions", "graded, but predictions.yaml does not parse: no prediction points"},
        {S::no_gpu, "no_gpu", "built, but no CUDA device (or none of the kind it needs) to grade on"},
        {S::wrong_answer, "wrong_answer", "a variant failed verification (or its CPU part threw)"},
        {S::timing_refused, "timing_refused", "a variant's timed launches did less than its watched ones"},
        {S::forbidden_call, "forbidden_call", "a variant's timed work was not its own (a library's kernel, a copy)"},
        {S::forbidden_symbol, "forbidden_symbol", "a kernel file defines a function the runtime, a library or the harness defines"},
        {S::crash, "crash", "a variant died (the reason names the signal or the limit), raised a CUDA error, or left no result"},
        {S::hang, "hang", "a variant, or the whole grading, ran past its timeout"},
        {S::error, "error", "the grader itself failed (the reason says why)"},
        {S::compile_error, "compile_error", "nvcc refused the submission, or ran past its time or memory limit"},
        {S::unsafe_entry, "unsafe_entry", "staging refused an entry (a link, a device file, a fifo): nothing graded"},
    };
    return rows;
}

std::string submission_outcomes_help() {
    std::string text;
    for (const auto& row : submission_outcomes()) text += fmt::format("  {:<22} {}\n", row.name, row.meaning);
    return text;
}

std::string outcome_name(SubmissionOutcome outcome) { return submission_outcomes()[static_cast<std::size_t>(outcome)].name; }

std::optional<SubmissionOutcome> parse_submission_outcome(const std::string& name) {
    for (const auto& row : submission_outcomes()) {
        if (name == row.name) return row.outcome;
    }
    return std::nullopt;
}

SubmissionOutcome worse(SubmissionOutcome a, SubmissionOutcome b) { return static_cast<int>(a) >= static_cast<int>(b) ? a : b; }

SubmissionOutcome submission_word(roofline::Outcome variant) {
    using V = roofline::Outcome;
    switch (variant) {
        case V::correct: return SubmissionOutcome::graded;
        case V::incorrect: return SubmissionOutcome::wrong_answer;
        case V::forbidden_call: return SubmissionOutcome::forbidden_call;
        case V::forbidden_symbol: return SubmissionOutcome::forbidden_symbol;
        case V::timing_refused: return SubmissionOutcome::timing_refused;
        case V::crashed:
        case V::cuda_error: return SubmissionOutcome::crash;
        case V::timed_out: return SubmissionOutcome::hang;
        case V::no_device:
        case V::other_hardware: return SubmissionOutcome::no_gpu;  // nothing here can run it
        case V::build_failed: return SubmissionOutcome::compile_error;
        case V::harness_error:
        case V::no_prediction: return SubmissionOutcome::error;  // the batch lifts the prediction gate
    }
    return SubmissionOutcome::error;
}

SubmissionOutcome variant_outcome(const nlohmann::json& variant) {
    if (!variant.is_object() || !variant.contains("outcome") || !variant["outcome"].is_string()) return SubmissionOutcome::error;
    const auto word = variant["outcome"].get<std::string>();
    // A CPU part's checker (cpu_grade.hpp) also says "threw" (the student's code threw: a
    // wrong answer) and "hang" (past lab.yaml's timeout_s).
    if (variant.value("graded_on", "") == "cpu") {
        if (word == "threw") return SubmissionOutcome::wrong_answer;
        if (word == "hang") return SubmissionOutcome::hang;
    }
    auto outcome = roofline::parse_outcome(word);
    return outcome ? submission_word(*outcome) : SubmissionOutcome::error;
}

}  // namespace roofline::batch
