#include "batch/outcome.hpp"

#include <algorithm>
#include <array>

namespace roofline::batch {

namespace {
const std::array<const char*, 11> kNames{"graded",    "no_predictions", "malformed_predictions", "wrong_answer",
                                         "forbidden_call", "forbidden_symbol", "crash", "hang", "no_gpu", "error",
                                         "compile_error"};
}

std::string outcome_name(Outcome outcome) { return kNames[static_cast<std::size_t>(outcome)]; }

std::optional<Outcome> parse_outcome(const std::string& name) {
    auto it = std::find(kNames.begin(), kNames.end(), name);
    if (it == kNames.end()) return std::nullopt;
    return static_cast<Outcome>(it - kNames.begin());
}

Outcome worse(Outcome a, Outcome b) { return static_cast<int>(a) >= static_cast<int>(b) ? a : b; }

Outcome variant_outcome(const nlohmann::json& variant) {
    if (!variant.is_object()) return Outcome::error;
    // score_json has no "outcome": a scored variant says whether it was correct.
    if (!variant.contains("outcome")) {
        if (!variant.contains("points")) return Outcome::error;
        return variant.value("correct", false) ? Outcome::graded : Outcome::wrong_answer;
    }
    auto name = variant["outcome"].get<std::string>();
    if (name == "incorrect") return Outcome::wrong_answer;
    if (name == "forbidden_call") return Outcome::forbidden_call;
    if (name == "forbidden_symbol" || name == "timing_refused") return Outcome::forbidden_symbol;
    if (name == "crashed" || name == "cuda_error") return Outcome::crash;
    if (name == "timed_out") return Outcome::hang;
    if (name == "no_device" || name == "other_hardware") return Outcome::no_gpu;  // nothing here can run it
    if (name == "build_failed") return Outcome::compile_error;
    if (name == "correct") return Outcome::graded;
    return Outcome::error;  // harness_error, no_prediction (the batch lifts that gate), anything new
}

}  // namespace roofline::batch
