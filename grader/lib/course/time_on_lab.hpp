// How long a student has worked on each lab, read off their own prediction log: every entry
// (a prediction, a grade, a gap note, a profile, a diagnosis) carries the UTC time it was
// written, and the time between two entries of one lab counts as work when it is shorter than
// an idle gap (45 minutes): a longer one is a break, and starts another sitting.
//
// It is a lower bound, and it is the student's own account. Reading the lesson and writing the
// first kernel before the first `predict` of a sitting leaves no entry, so it is not counted;
// and the times are in a file the student holds. The class report shows it to the instructor as
// what it is (logged hours), for setting the module's hours, never for a grade.
#pragma once
#include "prediction_log.hpp"

#include <optional>
#include <string>
#include <vector>

namespace roofline {

inline constexpr double kIdleGapMinutes = 45;

struct TimeOnLab {
    std::string lab;          // as the course names it now
    double logged_hours = 0;  // the sum of the gaps between entries shorter than the idle gap
    int sittings = 0;         // runs of entries without an idle gap between them
    int entries = 0;
};

// One row per lab with an entry, in the course's order of lab names. Entries whose time does
// not read as the log writes it (YYYY-MM-DDTHH:MM:SSZ) are left out.
std::vector<TimeOnLab> time_on_labs(const PredictionLog& log, double idle_gap_minutes = kIdleGapMinutes);

// Seconds since 1970 of a time as the log writes it; nothing for any other form.
std::optional<long long> log_time_seconds(const std::string& iso8601_utc);

}  // namespace roofline
