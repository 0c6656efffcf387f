// The causes a student may name for a slow kernel (`roofline diagnose LAB/VARIANT
// --cause ID --why "..."`, the list of lesson 02), which of them a profile's counters
// show (`roofline profile` compares the two), and what a fix must do to the counter that
// showed each (`roofline grade` scores it, diagnosis_score.hpp).
#pragma once
#include "profile_report.hpp"

#include <map>
#include <string>
#include <vector>

namespace roofline {

struct DiagnosisCause {
    std::string id;        // uncoalesced
    std::string meaning;   // one line, for --help and the report
    std::string evidence;  // the counter that shows it
    // The figure (cause_figures) that shows it, and what the fix must do to it: divide it by
    // `factor` at least (lower_is_better) or multiply it by `factor` at least.
    std::string figure;
    bool lower_is_better = true;
    double factor = 1;
};

const std::vector<DiagnosisCause>& diagnosis_causes();
const DiagnosisCause* find_cause(const std::string& id);

// The causes the report's counters show, by the thresholds profile_report.cpp uses for
// its signs; "at_roof" when a roof binds and nothing else shows.
std::vector<std::string> causes_shown(const ProfileReport& report);

// Each cause's figure read off the report (the ones the counters gave): kept in the
// prediction log with each profile, so that `grade` can compare a fix with its diagnosis.
std::map<std::string, double> cause_figures(const ProfileReport& report);

}  // namespace roofline
