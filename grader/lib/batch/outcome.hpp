// What became of one submission in `roofline batch`, named with the words the
// gradebook and the summary use. One submission has one outcome: the worst of
// its variants' (a crash outranks a wrong answer), and, when every kernel was
// graded, what was wrong with its prediction log, if anything.
#pragma once
#include <nlohmann/json.hpp>

#include <optional>
#include <string>

namespace roofline::batch {

enum class Outcome {
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

std::string outcome_name(Outcome outcome);
std::optional<Outcome> parse_outcome(const std::string& name);
// The more serious of the two (the order of the enum).
Outcome worse(Outcome a, Outcome b);

// One variant's object from `roofline grade --all --json`.
Outcome variant_outcome(const nlohmann::json& variant);

}  // namespace roofline::batch
