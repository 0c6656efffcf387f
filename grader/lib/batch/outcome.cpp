#include "batch/outcome.hpp"
#include "grade_outcome.hpp"

#include <algorithm>
#include <array>

namespace roofline::batch {

namespace {
const std::array<const char*, 11> kNames{"graded",    "no_predictions", "malformed_predictions", "wrong_answer",
                                         "forbidden_call", "forbidden_symbol", "crash", "hang", "no_gpu", "error",
                                         "compile_error"};
}

std::string outcome_name(SubmissionOutcome outcome) { return kNames[static_cast<std::size_t>(outcome)]; }

std::optional<SubmissionOutcome> parse_submission_outcome(const std::string& name) {
    auto it = std::find(kNames.begin(), kNames.end(), name);
    if (it == kNames.end()) return std::nullopt;
    return static_cast<SubmissionOutcome>(it - kNames.begin());
}

SubmissionOutcome worse(SubmissionOutcome a, SubmissionOutcome b) { return static_cast<int>(a) >= static_cast<int>(b) ? a : b; }

SubmissionOutcome submission_word(roofline::Outcome variant) {
    using V = roofline::Outcome;
    switch (variant) {
        case V::correct: return SubmissionOutcome::graded;
        case V::incorrect: return SubmissionOutcome::wrong_answer;
        case V::forbidden_call: return SubmissionOutcome::forbidden_call;
        case V::forbidden_symbol:
        case V::timing_refused: return SubmissionOutcome::forbidden_symbol;
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
