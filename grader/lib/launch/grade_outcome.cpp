#include "grade_outcome.hpp"

#include "exit_code.hpp"

#include <array>

namespace roofline {

namespace {

struct OutcomeRow {
    Outcome outcome;
    std::string_view name;
    int exit_code;
};

// In the enum's order; the test walks it both ways.
constexpr std::array<OutcomeRow, 13> kOutcomes{{
    {Outcome::correct, "correct", kGradedCorrect},
    {Outcome::incorrect, "incorrect", kGradedIncorrect},
    {Outcome::crashed, "crashed", kCrashedOrTimedOut},
    {Outcome::timed_out, "timed_out", kCrashedOrTimedOut},
    {Outcome::cuda_error, "cuda_error", kCrashedOrTimedOut},
    {Outcome::harness_error, "harness_error", kBadInput},
    {Outcome::forbidden_call, "forbidden_call", kForbidden},
    {Outcome::forbidden_symbol, "forbidden_symbol", kForbidden},
    {Outcome::timing_refused, "timing_refused", kForbidden},
    {Outcome::no_prediction, "no_prediction", kNoPrediction},
    {Outcome::build_failed, "build_failed", kBuildFailed},
    {Outcome::no_device, "no_device", kNoDevice},
    {Outcome::other_hardware, "other_hardware", kNeedsOtherHardware},
}};

const OutcomeRow& row_of(Outcome outcome) { return kOutcomes[static_cast<std::size_t>(outcome)]; }

}  // namespace

std::string_view outcome_name(Outcome outcome) { return row_of(outcome).name; }

std::optional<Outcome> parse_outcome(std::string_view name) {
    for (const auto& row : kOutcomes) {
        if (row.name == name) return row.outcome;
    }
    return std::nullopt;
}

int exit_code_for(Outcome outcome) { return row_of(outcome).exit_code; }

}  // namespace roofline
