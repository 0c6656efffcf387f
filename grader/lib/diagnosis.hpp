// The causes a student may name for a slow kernel (`roofline diagnose LAB/VARIANT
// --cause ID --why "..."`, the list of lesson 06), and which of them a profile's
// counters show (`roofline profile` compares the two).
#pragma once
#include "profile_report.hpp"

#include <string>
#include <vector>

namespace roofline {

struct DiagnosisCause {
    std::string id;        // uncoalesced
    std::string meaning;   // one line, for --help and the report
    std::string evidence;  // the counter that shows it
};

const std::vector<DiagnosisCause>& diagnosis_causes();
const DiagnosisCause* find_cause(const std::string& id);

// The causes the report's counters show, by the thresholds profile_report.cpp uses for
// its signs; "at_roof" when a roof binds and nothing else shows.
std::vector<std::string> causes_shown(const ProfileReport& report);

}  // namespace roofline
