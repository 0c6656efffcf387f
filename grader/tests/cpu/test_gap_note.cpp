// Gap notes (`roofline explain`) in the prediction log: bound to a measurement
// by its id, append-only like every entry, refused when they name no measurement
// above them or another variant's; logs written before measurement ids still load.
#include "test_support.hpp"

#include "prediction_log.hpp"

using namespace roofline;
using namespace roofline_test;

namespace {

const std::string kShape = "n=268435456";

GapNote make_note(const Measurement& m, const std::string& why = "one 4-byte load in flight per thread") {
    GapNote n;
    n.measurement_id = m.id;
    n.lab = m.lab;
    n.variant = m.variant;
    n.why = why;
    n.written_at = "2026-11-29T10:10:00Z";
    return n;
}

// A log with one prediction and one measurement of copy_naive_fp32; returns its file.
Measurement predict_and_measure(const std::filesystem::path& file, const std::string& variant = "copy_naive_fp32",
                                double measured_us = 790) {
    auto p = append_prediction(file, make_prediction(variant, kShape, "fnv1a64:" + variant, 600));
    return append_measurement(file, make_measurement(p, measured_us));
}

}  // namespace

TEST_CASE("measurements are numbered m1, m2, ... and gap notes bind to them", "[log][gap_note]") {
    TempDir dir;
    auto file = dir / "predictions.yaml";
    auto m1 = predict_and_measure(file);
    auto m2 = predict_and_measure(file, "add_fp32", 780);
    CHECK(m1.id == "m1");
    CHECK(m2.id == "m2");
    auto before = read_file(file);
    append_gap_note(file, make_note(m1, "quotes \" and: colons # kept"));
    auto after = read_file(file);
    CHECK(after.size() > before.size());
    CHECK(after.compare(0, before.size(), before) == 0);  // earlier bytes untouched

    auto log = load_log(file);
    REQUIRE(log.gap_notes.size() == 1);
    CHECK(log.gap_notes[0].measurement_id == "m1");
    CHECK(log.gap_notes[0].why == "quotes \" and: colons # kept");
    CHECK(log.notes_for("m1").size() == 1);
    CHECK(log.notes_for("m2").empty());
    REQUIRE(log.measurements.size() == 2);
    CHECK(log.measurements[1].id == "m2");
}

TEST_CASE("latest_graded: the newest correct measurement of the variant", "[log][gap_note]") {
    TempDir dir;
    auto file = dir / "predictions.yaml";
    CHECK(load_log(file).latest_graded("01-memory-roof", "copy_naive_fp32") == nullptr);
    predict_and_measure(file);
    auto p = append_prediction(file, make_prediction("copy_naive_fp32", kShape, "fnv1a64:again", 700));
    auto wrong = make_measurement(p, 10);
    wrong.correct = false;
    append_measurement(file, wrong);
    auto log = load_log(file);
    const auto* m = log.latest_graded("01-memory-roof", "copy_naive_fp32");
    REQUIRE(m != nullptr);
    CHECK(m->id == "m1");  // m2 is incorrect: not a graded measurement
    CHECK(log.latest_graded("01-memory-roof", "add_fp32") == nullptr);
}

TEST_CASE("a gap note naming no measurement, or another variant's, is refused and nothing is written", "[log][gap_note]") {
    TempDir dir;
    auto file = dir / "predictions.yaml";
    auto m1 = predict_and_measure(file);
    auto before = read_file(file);

    auto missing = make_note(m1);
    missing.measurement_id = "m7";
    auto message = input_error_of([&] { append_gap_note(file, missing); });
    INFO(message);
    check_mentions(message, {"m7", "names no measurement"});
    CHECK(read_file(file) == before);

    auto other = make_note(m1);
    other.variant = "add_fp32";
    message = input_error_of([&] { append_gap_note(file, other); });
    CHECK(contains(message, "copy_naive_fp32"));
    CHECK(read_file(file) == before);
}

TEST_CASE("a hand-edited gap note or measurement id is reported with file:line", "[log][gap_note]") {
    TempDir dir;
    auto file = dir / "predictions.yaml";
    predict_and_measure(file);
    auto base = read_file(file);
    write_file(file, base + "- kind: gap_note\n  measurement: m2\n  lab: 01-memory-roof\n  variant: copy_naive_fp32\n"
                            "  why: \"a note before its measurement\"\n  written_at: 2026-11-29T10:10:00Z\n");
    auto message = input_error_of([&] { load_log(file); });
    INFO(message);
    check_mentions(message, {"predictions.yaml:", "m2"});

    write_file(file, replaced(base, "id: m1", "id: m5"));
    message = input_error_of([&] { load_log(file); });
    CHECK(contains(message, "must be m1"));
}

TEST_CASE("a log written before measurement ids loads, numbered in order, and takes a gap note", "[log][gap_note]") {
    TempDir dir;
    auto file = dir / "predictions.yaml";
    auto m1 = predict_and_measure(file);
    const auto old = replaced(read_file(file), "  id: m1\n", "");  // the entry as an older roofline wrote it
    write_file(file, old);
    auto log = load_log(file);
    REQUIRE(log.measurements.size() == 1);
    CHECK(log.measurements[0].id == "m1");
    append_gap_note(file, make_note(m1));
    CHECK(read_file(file).compare(0, old.size(), old) == 0);
    CHECK(load_log(file).notes_for("m1").size() == 1);
}
