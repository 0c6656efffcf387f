// A variant as the lab program registered it (the kernel file's ROOFLINE_*_VARIANT
// line: its name, operation, dtype and source file) against the variant lab.yaml
// describes. `roofline grade` refuses a variant whose registration disagrees with
// lab.yaml (a run's result carries the registration); the lab-list CTest compares a
// whole program's `--list` with lab.yaml, so that a drift fails at build time.
#pragma once
#include "lab_result.hpp"
#include "lab_spec.hpp"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace roofline {

// How the registration disagrees with `variant` (op, dtype or file), naming lab.yaml's
// line, or nothing. `registration`: a run's (protocol/lab_result.hpp) or a `--list`
// entry's, which carries the same "problem" (the op), "dtype" and "source_file".
std::optional<std::string> registration_mismatch(const protocol::Registration& registration, const VariantSpec& variant,
                                                 const LabSpec& lab);

// Every way a lab program's `--list` (a JSON array) and lab.yaml disagree, one line each,
// "LAB.YAML:LINE: ..." with the fix: a variant lab.yaml lists that the program does not
// register, one it registers that lab.yaml does not list, and each registration mismatch.
// `program`: the program's name, for the messages. Empty: they agree.
std::vector<std::string> listing_mismatches(const LabSpec& lab, const nlohmann::json& listing,
                                            const std::string& program);

}  // namespace roofline
