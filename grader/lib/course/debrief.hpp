// The debrief: labs/LAB/debrief/VARIANT.md, the measured story of one variant
// (what it ran at on our GPU, why, and what the gap usually is). It holds the
// answer to the prediction, so it opens only once the student's log holds a
// graded (correct) measurement of that variant: `roofline debrief` and the end
// of `roofline grade`'s report. The file is in every edition: locked by the log,
// not hidden. An instructor's --solutions run opens it without a measurement.
#pragma once
#include "prediction_log.hpp"
#include "workspace.hpp"

#include <filesystem>
#include <optional>
#include <string>

namespace roofline {

std::filesystem::path debrief_file(const Workspace& workspace, const std::string& lab, const std::string& variant);

struct DebriefGate {
    std::optional<std::string> text;          // the debrief, when it is open
    const Measurement* measurement = nullptr;  // the graded measurement that opened it (none for --solutions)
    std::string refusal;                      // why it is closed, with the commands that open it
};

// Open when `log` holds a correct measurement of lab/variant, or `solutions` is set.
// A missing debrief file is an InputError naming the path. `log_flag` (" --log F" or
// "") goes into the commands the refusal suggests.
DebriefGate open_debrief(const Workspace& workspace, const PredictionLog& log, const std::string& lab,
                         const std::string& variant, bool solutions, const std::string& log_flag);

}  // namespace roofline
