// Reports (lib/grading/report.cpp): the JSON of a scored run, the Gradescope
// results.json for a scored and a failed run, the terminal text.
#include "test_support.hpp"

#include "hardware.hpp"
#include "lab_spec.hpp"
#include "output_file.hpp"
#include "report.hpp"
#include "lab_run.hpp"
#include "score.hpp"

using namespace roofline;
using namespace roofline_test;
using nlohmann::json;

namespace {

struct Scored {
    LabSpec lab = load_lab(test_data() / "labs" / "scoring" / "lab.yaml");
    HardwareProfile h200 = test_gpu();
    GradeContext context{"scoring/copy_fp32", "NVIDIA H200", "labs", false};
    protocol::Result result;
    Score score;

    // the fixture lab's copy_fp32 (2^31 bytes), 625 us against cudaMemcpy's 500 us, predicted 600 us memory-bound:
    // 40 + 37.5 + 10 = 87.5 of 100 (worked in test_score.cpp)
    explicit Scored(double variant_s = 625e-6, const std::string& status = "ok") {
        result = lab_result(status, variant_s, 500e-6);
        Prediction p;
        p.id = "p1";
        p.predicted_time_s = 600e-6;
        p.regime = Regime::memory;
        const auto& v = lab.variant("copy_fp32");
        score = score_run(lab, v, result, h200, choose_ceiling(h200, nullptr, v.dtype), &p);
    }
};

void check_gradescope_shape(const json& g) {
    REQUIRE(g.is_object());
    REQUIRE(g.contains("score"));
    REQUIRE(g.contains("max_score"));
    REQUIRE(g.contains("tests"));
    REQUIRE(g["tests"].is_array());
    REQUIRE(!g["tests"].empty());
    double sum = 0, max_sum = 0;
    for (const auto& t : g["tests"]) {
        INFO(t.dump());
        for (const char* key : {"name", "score", "max_score", "output", "visibility"}) CHECK(t.contains(key));
        CHECK(t["name"].is_string());
        CHECK(t["output"].is_string());
        CHECK(t["visibility"] == "visible");
        CHECK(t["score"].get<double>() >= 0);
        CHECK(t["score"].get<double>() <= t["max_score"].get<double>() + 1e-9);
        sum += t["score"].get<double>();
        max_sum += t["max_score"].get<double>();
    }
    CHECK(sum == Approx(g["score"].get<double>()));
    CHECK(max_sum == Approx(g["max_score"].get<double>()));
}

// A lab with one extra scored part `key` (byte_prediction, diagnosis) that scored 5 points: the
// terminal report of `run` holds each of `lines`, its JSON the part's points and a total of 92.5.
// Returns the JSON.
json check_reported(const Scored& run, const std::string& key, const std::vector<std::string>& lines) {
    check_mentions(terminal_report(run.context, run.score, run.result), lines);
    auto j = score_json(run.context, run.score, run.result);
    CHECK(j["points"][key].get<double>() == 5);
    CHECK(j["points"]["total"].get<double>() == Approx(92.5));
    return j;
}

// The same lab: the Gradescope results of
// `run` carry it as a fourth test of 5 points named `name`, out of `max_score` in all; those
// of the same lab's crashed run keep the four tests. Returns the crashed run's.
json check_gradescope_fourth_test(const Scored& run, const std::string& name, double max_score) {
    auto g = gradescope_json(run.lab, run.context, &run.score, nullptr);
    check_gradescope_shape(g);
    REQUIRE(g["tests"].size() == 4);
    CHECK(g["tests"][3]["name"] == name);
    CHECK(g["tests"][3]["score"].get<double>() == 5);
    CHECK(g["max_score"].get<double>() == max_score);

    LabRun failure;
    failure.outcome = Outcome::crashed;
    failure.message = "signal 11";
    failure.result = lab_result("crashed", 625e-6, 500e-6);
    auto failed = gradescope_json(run.lab, run.context, nullptr, &failure);
    check_gradescope_shape(failed);
    CHECK(failed["tests"].size() == 4);
    return failed;
}

}  // namespace

TEST_CASE("score_json carries the figures of a scored run", "[report]") {
    Scored run;
    auto j = score_json(run.context, run.score, run.result);
    CHECK(j["target"] == "scoring/copy_fp32");
    CHECK(j["gpu"] == "NVIDIA H200");
    CHECK(j["source"] == "labs");
    CHECK(j["correct"] == true);
    CHECK(j["outcome"] == "correct");  // success names its outcome too
    CHECK(j["impossible"] == false);
    CHECK(j["verdict"] == "correct");
    CHECK(j["unit"] == "TB/s");
    CHECK(j["work"]["bytes"].get<double>() == 2147483648.0);
    CHECK(j["work"]["flops"].get<double>() == 0);
    CHECK(j["time_s"]["median"].get<double>() == 625e-6);
    CHECK(j["time_s"]["samples"] == 12);
    CHECK(j["peer"]["name"] == "cudaMemcpy D2D");
    CHECK(j["peer"]["median_s"].get<double>() == 500e-6);
    CHECK(j["achieved"].get<double>() == Approx(3.4359738368));
    CHECK(j["fraction_of_peer"].get<double>() == Approx(0.8));
    CHECK(j["fraction_scored"].get<double>() == Approx(0.8));
    CHECK(j["fraction_of_roofline"].get<double>() == Approx(0.71583).epsilon(1e-4));
    CHECK(j["attainable"].get<double>() == Approx(4.8));
    CHECK(j["regime"] == "memory");
    CHECK(j["measured_regime"] == "memory");
    CHECK(j["physical_floor_s"].get<double>() == Approx(447.392e-6).epsilon(1e-5));
    CHECK(j["sm_clock_mhz"]["median"].get<double>() == 1980);
    CHECK(j["points"]["correctness"].get<double>() == 40);
    CHECK(j["points"]["performance"].get<double>() == Approx(37.5));
    CHECK(j["points"]["prediction"].get<double>() == Approx(10));
    CHECK(j["points"]["total"].get<double>() == Approx(87.5));
    CHECK(j["points"]["max"].get<double>() == 100);
    CHECK(j["prediction"]["ratio"].get<double>() == Approx(625.0 / 600.0));
    CHECK(j["prediction"]["regime_right"] == true);
    CHECK(j["prediction_edited"] == false);
    CHECK(j["checks"] == json(run.result)["checks"]);
    CHECK(j["checks"][0]["shape"]["n"] == 17);  // the lab program's keys, as the saved results have them
    CHECK(j["checks"][0]["report"]["passed"] == true);
    // what `roofline list` and the SVG read back from the saved file
    CHECK(j.contains("intensity"));
    CHECK(j.contains("scored_against"));
}

TEST_CASE("gradescope_json for a scored run: tests sum to the score", "[report]") {
    Scored run;
    auto g = gradescope_json(run.lab, run.context, &run.score, nullptr);
    check_gradescope_shape(g);
    CHECK(g["score"].get<double>() == Approx(87.5));
    CHECK(g["max_score"].get<double>() == 100);
    REQUIRE(g["tests"].size() == 3);
    CHECK(g["tests"][0]["max_score"].get<double>() == 40);
    CHECK(g["tests"][1]["max_score"].get<double>() == 50);
    CHECK(g["tests"][2]["max_score"].get<double>() == 10);
    CHECK(g["tests"][1]["score"].get<double>() == Approx(37.5));
    for (const auto& t : g["tests"]) CHECK(contains(t["name"].get<std::string>(), "scoring/copy_fp32"));
    // the performance line says what full marks need: the variant's target, 90%
    CHECK(contains(g["tests"][1]["output"].get<std::string>(), "90%"));
    CHECK(contains(g["tests"][1]["output"].get<std::string>(), "80.0%"));
}

TEST_CASE("a grading timed beside other processes: Gradescope says so, never naming them, the score as measured",
          "[report][shared_gpu]") {
    Scored run;
    const auto plain = gradescope_json(run.lab, run.context, &run.score, nullptr);
    auto grading = score_json(run.context, run.score, run.result);

    SECTION("a grading JSON without shared_gpu adds nothing") {
        CHECK(shared_gpu_gradescope_note(grading).empty());
        auto g = plain;
        add_shared_gpu_note(g, grading);
        CHECK(g == plain);
    }
    SECTION("with shared_gpu: the top-level output and the performance test's say so") {
        // As grade.cpp writes it; in a batch a neighbour is another student's lab program, by its path.
        grading["shared_gpu"] = {
            {"note", "other processes used the GPU while this was timed: 4242 /tmp/roofline-batch/alice/lab_01 "
                     "(2048 MiB), 7777 python3; the time may be slower than the GPU's own"},
            {"processes", json::array({{{"pid", 4242}, {"name", "/tmp/roofline-batch/alice/lab_01"}, {"used_mib", 2048}},
                                       {{"pid", 7777}, {"name", "python3"}}})}};
        auto g = plain;
        add_shared_gpu_note(g, grading);
        check_gradescope_shape(g);
        const std::string said = "shared GPU: 2 other processes used the GPU while this was timed";
        auto output = g["output"].get<std::string>();
        CHECK(output.starts_with(plain["output"].get<std::string>() + "\n"));
        CHECK(contains(output, said));
        CHECK(contains(output, "the score is as measured"));
        REQUIRE(g["tests"].size() == plain["tests"].size());
        for (std::size_t i = 0; i < g["tests"].size(); ++i) {
            const auto& test = g["tests"][i];
            INFO(test.dump());
            CHECK(test["score"] == plain["tests"][i]["score"]);  // a note, never a change of score
            bool performance = test["name"].get<std::string>().ends_with(": performance");
            CHECK(contains(test["output"].get<std::string>(), said) == performance);
        }
        CHECK(g["score"] == plain["score"]);
        // The student reads this: no other student's folder, no pid.
        CHECK_FALSE(contains(g.dump(), "alice"));
        CHECK_FALSE(contains(g.dump(), "4242"));

        grading["shared_gpu"]["processes"] = json::array({{{"pid", 7777}, {"name", "python3"}}});
        CHECK(contains(shared_gpu_gradescope_note(grading), "shared GPU: another process used the GPU"));
    }
}

TEST_CASE("gradescope_json for an impossible time: zero, with the reason", "[report]") {
    Scored run(400e-6);  // below the 447 us floor
    REQUIRE(run.score.impossible);
    auto g = gradescope_json(run.lab, run.context, &run.score, nullptr);
    check_gradescope_shape(g);
    CHECK(g["score"].get<double>() == 0);
    CHECK(contains(g["tests"][0]["output"].get<std::string>(), "rejected"));
    auto text = terminal_report(run.context, run.score, run.result);
    check_mentions(text, {"INCORRECT", "rejected"});
}

TEST_CASE("failure path: gradescope has zero score and the failure message", "[report]") {
    Scored base;
    LabRun failure;
    failure.outcome = Outcome::incorrect;
    failure.message = "copy_fp32 is incorrect on \"n=17\" (before timing): 3 of 17 wrong";
    failure.result = lab_result("incorrect", 625e-6, 500e-6);
    failure.result.checks[0].report.first_mismatches = {{.index = 5, .expected = 1.5, .got = 2.5},
                                                        {.index = 16, .expected = -3.0, .unwritten = true}};

    auto g = gradescope_json(base.lab, base.context, nullptr, &failure);
    check_gradescope_shape(g);
    CHECK(g["score"].get<double>() == 0);
    CHECK(g["max_score"].get<double>() == 100);
    auto output = g["tests"][0]["output"].get<std::string>();
    check_mentions(output, {failure.message, "index", "never written"});

    auto j = failure_json(base.context, failure, 100);
    CHECK(j["correct"] == false);
    CHECK(j["outcome"] == "incorrect");
    CHECK(j["verdict"] == failure.message);
    CHECK(j["points"]["total"].get<double>() == 0);
    CHECK(j["points"]["max"].get<double>() == 100);
    CHECK(j["checks"].size() == 1);

    auto text = failure_report(base.context, failure);
    check_mentions(text, {"INCORRECT", failure.message, "expected 1.5, got 2.5"});

    // a crash: FAILED, and the lab program's last output is shown
    LabRun crash;
    crash.outcome = Outcome::crashed;
    crash.message = "copy_fp32 crashed with signal 11 (Segmentation fault) during 'verify'";
    crash.child.output_tail = "roofline-stage: verify\nsomething went wrong\n";
    auto crash_text = failure_report(base.context, crash);
    check_mentions(crash_text, {"FAILED", "something went wrong"});
    CHECK(failure_json(base.context, crash, 100)["outcome"] == "crashed");
    auto crash_g = gradescope_json(base.lab, base.context, nullptr, &crash);
    check_gradescope_shape(crash_g);
    CHECK(crash_g["score"].get<double>() == 0);
    CHECK(contains(crash_g["tests"][0]["output"].get<std::string>(), "signal 11"));
}

TEST_CASE("mismatch_lines: the first failing check's mismatches", "[report]") {
    auto result = lab_result("incorrect", 1e-3, 1e-3);
    CHECK(mismatch_lines(result).empty());  // no mismatch listed
    result.checks[0].report.first_mismatches = {{.index = 7, .expected = 2.0, .got = 3.0},
                                                {.index = 8, .expected = 1.0, .got = -std::numeric_limits<double>::infinity()}};
    auto lines = mismatch_lines(result);
    check_mentions(lines, {"7: expected 2, got 3", "8: expected 1, got -Inf"});
    CHECK(mismatch_lines(protocol::Result{}).empty());
}

TEST_CASE("terminal_report: the five-second summary", "[report]") {
    Scored run;
    auto text = terminal_report(run.context, run.score, run.result);
    INFO(text);
    check_mentions(text, {"scoring/copy_fp32  CORRECT  on NVIDIA H200", "80.0% of cudaMemcpy D2D",
                          "71.6% of the roofline", "memory-bound", "1980 MHz", "= 87.5 / 100",
                          "1.04x your prediction"});
    CHECK_FALSE(contains(text, "WARNING"));
    run.context.prediction_edited = true;
    CHECK(contains(terminal_report(run.context, run.score, run.result), "WARNING"));
}

TEST_CASE("write_json_file writes the whole value, creating folders", "[report]") {
    TempDir dir;
    auto file = dir / "results/01-memory-roof/labs/results.json";
    json value = {{"score", 87.5}, {"tests", json::array({json{{"name", "a"}}})}};
    write_json_file(file, value);
    CHECK(json::parse(read_file(file)) == value);
    CHECK_FALSE(std::filesystem::exists(dir / "results/01-memory-roof/labs/results.json.tmp"));
}

TEST_CASE("reports of a lab that scores byte predictions: the bytes line, the points, the Gradescope test", "[report][bytes]") {
    Scored plain;
    CHECK_FALSE(contains(terminal_report(plain.context, plain.score, plain.result), "bytes "));
    CHECK_FALSE(score_json(plain.context, plain.score, plain.result)["points"].contains("byte_prediction"));

    Scored run;
    run.lab.scoring.byte_prediction = 5;
    Prediction p;
    p.id = "p1";
    p.predicted_time_s = 600e-6;
    p.regime = Regime::memory;
    p.predicted_dram_bytes = 2.0e9;
    ProfileEntry counted;
    counted.prediction_id = "p1";
    counted.dram_bytes = 2.126e9;
    const auto& v = run.lab.variant("copy_fp32");
    run.score = score_run(run.lab, v, run.result, run.h200, choose_ceiling(run.h200, nullptr, v.dtype), &p,
                          std::nullopt, &counted);

    auto j = check_reported(run, "byte_prediction",
                            {"  bytes     ncu counted 2.126e+09 DRAM bytes, 1.06x your 2e+09: within 10%",
                             "10.0 prediction + 5 bytes = 92.5 / 105"});
    CHECK(j["byte_prediction"]["ratio"].get<double>() == Approx(1.063));

    auto failed = check_gradescope_fourth_test(run, "scoring/copy_fp32: byte prediction", 105);
    CHECK(failed["score"].get<double>() == 0);
}

TEST_CASE("reports of a lab that scores diagnoses: the diagnosis line, the points, the Gradescope test",
          "[report][diagnose]") {
    Scored plain;
    CHECK_FALSE(contains(terminal_report(plain.context, plain.score, plain.result), "diagnosis "));
    CHECK_FALSE(score_json(plain.context, plain.score, plain.result)["points"].contains("diagnosis"));

    Scored run;
    run.lab.scoring.diagnosis = 10;
    run.score.max_points = run.lab.scoring.total();
    DiagnosisScore d;
    d.cause = "tail_effect";
    d.shown_before = true;
    d.points = 5;
    d.verdict = "you named tail_effect: its counters showed tail_effect; this source is not profiled yet";
    run.score.diagnosis = d;
    run.score.diagnosis_points = d.points;

    auto j = check_reported(run, "diagnosis", {"  diagnosis you named tail_effect: its counters showed tail_effect",
                                               "10.0 prediction + 5 diagnosis = 92.5 / 110"});
    CHECK(j["diagnosis"]["shown_before"].get<bool>());
    CHECK_FALSE(j["diagnosis"]["fixed_after"].get<bool>());

    auto failed = check_gradescope_fourth_test(run, "scoring/copy_fp32: diagnosis", 110);
    CHECK(failed["tests"][3]["output"] == "not scored: the kernel must be correct first");
}
