// `roofline run LAB/VARIANT --sanitize [memcheck|racecheck|synccheck|initcheck]`: the
// variant at the lab's verify shapes under compute-sanitizer, one unwatched launch per
// shape (`--mode once`), each verified after it; the first findings shown as file:line
// of the student's kernel (the lab programs are compiled with -lineinfo).
#pragma once
#include "workspace.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>

namespace roofline {

struct SanitizeRequest {
    std::string lab, variant;
    std::string tool = "memcheck";
    bool solutions = false;
    bool build = true;
    std::optional<std::uint64_t> seed;
};

struct SanitizeOutcome {
    int exit_code = 0;  // 0 clean and correct, 1 findings or incorrect, 5 build, 6 crash, 10 no compute-sanitizer
    std::string text;
    nlohmann::json json;
};

inline constexpr int kFindingsShown = 5;

SanitizeOutcome sanitize_variant(const Workspace& workspace, const SanitizeRequest& request);

}  // namespace roofline
