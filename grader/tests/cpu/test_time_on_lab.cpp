// Time on a lab read off the student's log (lib/course/time_on_lab.cpp): the gaps between a
// lab's entries count while they are shorter than the idle gap; a longer one starts a sitting.
#include "test_support.hpp"

#include "time_on_lab.hpp"

using namespace roofline;

namespace {

Prediction prediction_at(const std::string& lab, const std::string& when) {
    Prediction p;
    p.lab = lab;
    p.made_at = when;
    return p;
}
Measurement measurement_at(const std::string& lab, const std::string& when) {
    Measurement m;
    m.lab = lab;
    m.measured_at = when;
    return m;
}

}  // namespace

TEST_CASE("log times read as the log writes them, and nothing else", "[time_on_lab]") {
    CHECK(log_time_seconds("1970-01-01T00:00:00Z") == 0);
    CHECK(log_time_seconds("2026-12-02T07:46:59Z") == 1796197619LL);  // `date -ud @1796197619`
    CHECK(log_time_seconds("2024-03-01T00:00:00Z").value() - log_time_seconds("2024-02-28T00:00:00Z").value() ==
          2 * 86400);  // a leap year's February 29
    CHECK_FALSE(log_time_seconds("2026-12-02 07:46:59"));
    CHECK_FALSE(log_time_seconds("2026-12-02T07:46:59Z trailing"));
    CHECK_FALSE(log_time_seconds("2026-13-02T07:46:59Z"));
    CHECK_FALSE(log_time_seconds(""));
}

TEST_CASE("time on a lab: gaps under the idle gap count, a longer one starts a sitting", "[time_on_lab]") {
    PredictionLog log;
    // Sitting 1: 10:00, 10:20, 10:50 (gaps 20 and 30 min) = 50 min.
    log.predictions.push_back(prediction_at("03-gemm", "2026-12-01T10:00:00Z"));
    log.measurements.push_back(measurement_at("03-gemm", "2026-12-01T10:20:00Z"));
    log.predictions.push_back(prediction_at("03-gemm", "2026-12-01T10:50:00Z"));
    // A night's break, then sitting 2: 09:00 and 09:40 = 40 min; a gap note and a diagnosis count too.
    log.measurements.push_back(measurement_at("03-gemm", "2026-12-02T09:00:00Z"));
    GapNote note;
    note.lab = "03-gemm";
    note.written_at = "2026-12-02T09:40:00Z";
    log.gap_notes.push_back(note);
    // Another lab's entries are its own.
    log.predictions.push_back(prediction_at("01-memory-roof", "2026-12-01T10:05:00Z"));
    log.measurements.push_back(measurement_at("01-memory-roof", "2026-12-01T10:35:00Z"));
    // A time that does not read is left out, not guessed.
    log.measurements.push_back(measurement_at("03-gemm", "yesterday"));

    auto labs = time_on_labs(log);
    REQUIRE(labs.size() == 2);
    CHECK(labs[0].lab == "01-memory-roof");
    CHECK(labs[0].logged_hours == Approx(0.5));
    CHECK(labs[0].sittings == 1);
    CHECK(labs[1].lab == "03-gemm");
    CHECK(labs[1].logged_hours == Approx(90.0 / 60));
    CHECK(labs[1].sittings == 2);
    CHECK(labs[1].entries == 5);

    // A longer idle gap joins the two sittings: the night counts.
    auto joined = time_on_labs(log, 24 * 60);
    CHECK(joined[1].sittings == 1);
    CHECK(joined[1].logged_hours > 20);
}

TEST_CASE("time on a lab: entries out of order in the file are sorted first", "[time_on_lab]") {
    PredictionLog log;
    log.measurements.push_back(measurement_at("00-three-regimes", "2026-12-01T10:30:00Z"));
    log.predictions.push_back(prediction_at("00-three-regimes", "2026-12-01T10:00:00Z"));
    log.predictions.push_back(prediction_at("00-three-regimes", "2026-12-01T10:10:00Z"));
    auto labs = time_on_labs(log);
    REQUIRE(labs.size() == 1);
    CHECK(labs[0].logged_hours == Approx(0.5));
    CHECK(labs[0].sittings == 1);
}
