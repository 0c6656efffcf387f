// Calibration over time (lib/course/calibration.cpp, `roofline log`): a prediction
// counts once, at its first measurement, so grading the same good guess again
// changes nothing; halves whose median errors are within noise are "unchanged".
#include "test_support.hpp"

#include "calibration.hpp"
#include "html_prediction_log.hpp"
#include "html_text.hpp"

#include <cmath>

using namespace roofline;
using namespace roofline_test;
using nlohmann::json;

namespace {

// A log in a temporary folder, with predictions and measurements appended in order.
struct Log {
    TempDir dir;
    fs::path file = dir / "predictions.yaml";

    Prediction predict(const std::string& variant, double us) {
        return append_prediction(file, make_prediction(variant, "n=268435456", "h", us, "w"));
    }
    void measure(const Prediction& p, double us) { append_measurement(file, make_measurement(p, us)); }
    PredictionLog load() const { return load_log(file); }
};

}  // namespace

TEST_CASE("calibration: a prediction graded twice counts once, at its first measurement", "[calibration]") {
    Log log;
    auto good = log.predict("copy_vectorized_fp32", 540);
    auto bad = log.predict("copy_naive_fp32", 500);
    log.measure(good, 551);
    log.measure(bad, 1000);
    log.measure(good, 549);  // the same prediction graded again
    log.measure(good, 553);

    auto loaded = log.load();
    auto graded = graded_predictions(loaded);
    REQUIRE(graded.size() == 2);
    CHECK(graded[0].prediction->id == good.id);
    CHECK(graded[0].first->measured_time_s == Approx(551e-6));
    REQUIRE(graded[0].regradings.size() == 2);
    CHECK(graded[0].regradings[1]->measured_time_s == Approx(553e-6));
    CHECK(graded[1].prediction->id == bad.id);
    CHECK(graded[1].regradings.empty());

    // the two regradings of the good guess did not make the student look better calibrated
    auto over_time = calibration_over_time(graded);
    CHECK(over_time.all.count == 2);
    CHECK(over_time.all.share_within_1_5x == Approx(0.5));
    CHECK(over_time.all.median_abs_log2 == Approx((std::log2(551.0 / 540) + 1) / 2));
}

TEST_CASE("calibration: the trend says unchanged within noise, closing or widening beyond it", "[calibration]") {
    auto trend_of = [](std::vector<double> ratios) {
        std::vector<Prediction> predictions(ratios.size());
        std::vector<Measurement> measurements(ratios.size());
        std::vector<GradedPrediction> graded;
        for (std::size_t i = 0; i < ratios.size(); ++i) {
            predictions[i].predicted_time_s = 1e-3;
            measurements[i].measured_time_s = 1e-3 * ratios[i];
            graded.push_back({&predictions[i], &measurements[i], {}});
        }
        return calibration_over_time(graded);
    };
    // issue 21: both halves print 1.02x, one a hair worse: that is no trend
    auto same = trend_of({1.018, 1.021, 1.022, 1.019});
    REQUIRE(same.trend);
    CHECK(*same.trend == Trend::unchanged);
    CHECK(same.second_half.median_abs_log2 != same.first_half.median_abs_log2);
    REQUIRE(trend_of({1.0, 1.08}).trend);  // 1.08x apart: still noise
    CHECK(*trend_of({1.0, 1.08}).trend == Trend::unchanged);
    CHECK(*trend_of({2.0, 0.6, 1.05, 0.97}).trend == Trend::closing);
    CHECK(*trend_of({1.05, 0.97, 2.0, 0.6}).trend == Trend::widening);
    CHECK(*trend_of({1.0, 1.2}).trend == Trend::widening);  // 1.2x apart is past noise
    CHECK_FALSE(trend_of({1.3}).trend);                    // one entry: no halves to compare
    CHECK(std::string(trend_name(Trend::unchanged)) == "unchanged");
}

TEST_CASE("cli log: a re-grade is listed, not counted; the scatter draws it as a ring", "[calibration][cli]") {
    Log log;
    auto p1 = log.predict("copy_vectorized_fp32", 540);
    auto p2 = log.predict("add_fp32", 800);
    log.measure(p1, 551);  // 1.02x
    log.measure(p1, 550);  // graded again: 1.02x
    log.measure(p2, 816);  // 1.02x

    auto svg = log.dir / "log.svg";
    auto text = run_cli("log --log " + shell_quote(log.file.string()) + " --svg " + shell_quote(svg.string()));
    INFO(text.all());
    REQUIRE(text.exit_code == 0);
    check_mentions(text.out, {"p1 graded again, not counted", "2 entries: median error 1.02x, 100% within 1.5x",
                              "the gap is unchanged within noise"});
    CHECK_FALSE(contains(text.out, "widening"));
    auto picture = read_file(svg);
    CHECK(contains(picture, "graded 2x; the first counts"));
    auto count = [&](const std::string& needle) {
        int n = 0;
        for (auto at = picture.find(needle); at != std::string::npos; at = picture.find(needle, at + 1)) ++n;
        return n;
    };
    CHECK(count("<circle class='mark'") == 2);
    CHECK(count("<circle class='regrade'") == 1);

    auto as_json = run_cli("log --json --log " + shell_quote(log.file.string()));
    REQUIRE(as_json.exit_code == 0);
    auto j = json::parse(as_json.out);
    REQUIRE(j["entries"].size() == 3);
    CHECK(j["entries"][0]["counted"] == true);
    CHECK(j["entries"][1]["counted"] == false);
    CHECK(j["entries"][2]["counted"] == true);
    CHECK(j["calibration"]["all"]["count"] == 2);
    CHECK(j["calibration"]["trend"] == "unchanged");
}

// One rule for both: `roofline log` and the report leave out a prediction edited after it
// was measured (calibration.hpp, counted_predictions), so they print the same figures.
TEST_CASE("calibration: roofline log and the report count the same predictions when one was edited",
          "[calibration][cli]") {
    Log log;
    auto a = log.predict("copy_naive_fp32", 500);
    auto b = log.predict("copy_vectorized_fp32", 540);
    auto c = log.predict("add_fp32", 900);
    log.measure(a, 1000);  // 2x off
    log.measure(b, 550);   // close
    log.measure(c, 950);   // close
    // The student edits a's time after seeing the measurement.
    auto text = read_file(log.file);
    auto edited = replaced(text, "predicted_time_us: 500", "predicted_time_us: 990");
    REQUIRE(edited != text);
    write_file(log.file, edited);

    auto loaded = log.load();
    auto counting = counted_predictions(loaded);
    CHECK(counting.edited_left_out == 1);
    REQUIRE(counting.counted.size() == 2);

    auto r = run_cli("log --json --log " + shell_quote(log.file.string()));
    INFO(r.all());
    REQUIRE(r.exit_code == 0);
    auto cli = json::parse(r.out)["calibration"];
    CHECK(cli["all"]["count"] == 2);
    CHECK(cli["edited_left_out"] == 1);

    auto html = prediction_log_section(loaded);
    auto expected_median = calibration_over_time(counting.counted).all.median_abs_log2;
    CHECK(cli["all"]["median_abs_log2_ratio"].get<double>() == Approx(expected_median));
    // the report's "all" row: 2 predictions, the same median, and the edited one named as left out
    CHECK(contains(html, "<th scope='row'>all</th><td class='num'>2</td><td class='num' data-value='" +
                             exact_number(expected_median) + "'>"));
    CHECK(contains(html, "data-count='1'"));
}
