#include "time_on_lab.hpp"

#include <algorithm>
#include <cstdio>
#include <map>

namespace roofline {

namespace {

// Days from 1970-01-01 to a date of the proleptic Gregorian calendar (Howard Hinnant's
// days_from_civil), so that no time zone or locale of the machine enters.
long long days_from_civil(int y, unsigned m, unsigned d) {
    y -= m <= 2;
    const long long era = (y >= 0 ? y : y - 399) / 400;
    const unsigned yoe = static_cast<unsigned>(y - era * 400);
    const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
    const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + static_cast<long long>(doe) - 719468;
}

}  // namespace

std::optional<long long> log_time_seconds(const std::string& text) {
    int y = 0, mo = 0, d = 0, h = 0, mi = 0, s = 0, used = 0;
    if (std::sscanf(text.c_str(), "%4d-%2d-%2dT%2d:%2d:%2dZ%n", &y, &mo, &d, &h, &mi, &s, &used) != 6 ||
        used != static_cast<int>(text.size()))
        return std::nullopt;
    if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 60) return std::nullopt;
    return days_from_civil(y, static_cast<unsigned>(mo), static_cast<unsigned>(d)) * 86400 + h * 3600 + mi * 60 + s;
}

std::vector<TimeOnLab> time_on_labs(const PredictionLog& log, double idle_gap_minutes) {
    std::map<std::string, std::vector<long long>> times;
    auto add = [&](const std::string& lab, const std::string& when) {
        if (auto t = log_time_seconds(when)) times[lab].push_back(*t);
    };
    for (const auto& p : log.predictions) add(p.lab, p.made_at);
    for (const auto& m : log.measurements) add(m.lab, m.measured_at);
    for (const auto& n : log.gap_notes) add(n.lab, n.written_at);
    for (const auto& p : log.profiles) add(p.lab, p.profiled_at);
    for (const auto& d : log.diagnoses) add(d.lab, d.written_at);

    const double idle_gap_s = idle_gap_minutes * 60;
    std::vector<TimeOnLab> labs;
    for (auto& [lab, when] : times) {
        std::sort(when.begin(), when.end());
        TimeOnLab row{lab, 0, 1, static_cast<int>(when.size())};
        double seconds = 0;
        for (std::size_t i = 1; i < when.size(); ++i) {
            const double gap = double(when[i] - when[i - 1]);
            if (gap < idle_gap_s) seconds += gap;
            else ++row.sittings;
        }
        row.logged_hours = seconds / 3600;
        labs.push_back(row);
    }
    return labs;
}

}  // namespace roofline
