// Scoring (lib/grading/score.cpp): prediction points, and a whole run scored from the
// lab program's JSON: fractions of the peer and of the roofline, performance
// points between floor and target, impossible times rejected.
#include "test_support.hpp"

#include "hardware.hpp"
#include "lab_spec.hpp"
#include "score.hpp"

#include <cmath>

using namespace roofline;
using namespace roofline_test;

namespace {

Prediction predicted(double time_s, Regime regime) {
    Prediction p;
    p.id = "p1";
    p.predicted_time_s = time_s;
    p.regime = regime;
    return p;
}

// The fixture lab (tests/data/labs/scoring): 40 + 50 + 10 points, against the peer,
// floor 0.5, target 0.9; copy_fp32 and add_fp32 at n = 2^28. The GPU has H200 figures.
struct Setup {
    LabSpec lab = load_lab(test_data() / "labs" / "scoring" / "lab.yaml");
    HardwareProfile h200 = test_gpu();

    // `variant` scored on the datasheet ceiling: a run with `status`, the variant's median
    // `variant_s` against the peer's 500 us.
    Score score(const std::string& variant, const std::string& status, double variant_s,
                const Prediction* prediction = nullptr) const {
        const auto& v = lab.variant(variant);
        return score_run(lab, v, lab_result(status, variant_s, 500e-6), h200, choose_ceiling(h200, nullptr, v.dtype),
                         prediction);
    }
};

}  // namespace

TEST_CASE("score_prediction: half for the regime, half for the time", "[score]") {
    // predicted 100 us, memory-bound; max 10 points
    auto p = predicted(100e-6, Regime::memory);
    auto points = [&](double measured_s, Regime regime) { return score_prediction(p, measured_s, regime, 10).points; };

    SECTION("exact") {
        auto s = score_prediction(p, 100e-6, Regime::memory, 10);
        CHECK(s.regime_right);
        CHECK(s.ratio == Approx(1.0));
        CHECK(s.points == Approx(10));
        check_mentions(s.verdict, {"1.00x", "regime right"});
    }
    SECTION("within 1.5x either way is full time credit") {
        CHECK(points(150e-6, Regime::memory) == Approx(10));
        CHECK(points(100e-6 / 1.5, Regime::memory) == Approx(10));
        CHECK(points(120e-6, Regime::memory) == Approx(10));
        CHECK(points(149e-6, Regime::memory) == Approx(10));
    }
    SECTION("3x or worse either way is no time credit") {
        CHECK(points(300e-6, Regime::memory) == Approx(5));
        CHECK(points(100e-6 / 3, Regime::memory) == Approx(5));
        CHECK(points(1000e-6, Regime::memory) == Approx(5));
        CHECK(points(1e-6, Regime::memory) == Approx(5));
    }
    SECTION("in between: linear in log2 of the ratio") {
        // 2x: |log2 2| = 1; credit = (log2 3 - 1) / (log2 3 - log2 1.5) = 0.58496 / 1 = 0.58496
        // points = 5 + 5 * 0.58496 = 7.9248
        CHECK(points(200e-6, Regime::memory) == Approx(7.9248).epsilon(1e-4));
        CHECK(points(50e-6, Regime::memory) == Approx(7.9248).epsilon(1e-4));  // 2x too fast scores the same
        // sqrt(1.5 * 3) = 2.1213x sits halfway in log2: credit 0.5 -> 7.5
        CHECK(points(100e-6 * std::sqrt(4.5), Regime::memory) == Approx(7.5));
        // strictly decreasing from 1.5x to 3x
        CHECK(points(160e-6, Regime::memory) < 10);
        CHECK(points(160e-6, Regime::memory) > points(250e-6, Regime::memory));
        CHECK(points(290e-6, Regime::memory) > 5);
    }
    SECTION("the wrong regime loses its half") {
        auto s = score_prediction(p, 100e-6, Regime::compute, 10);
        CHECK_FALSE(s.regime_right);
        CHECK(s.points == Approx(5));
        CHECK(contains(s.verdict, "you said memory, it is compute"));
        CHECK(points(200e-6, Regime::overhead) == Approx(2.9248).epsilon(1e-4));
        CHECK(points(300e-6, Regime::compute) == Approx(0));
    }
    SECTION("max points scale the result") {
        CHECK(score_prediction(p, 200e-6, Regime::memory, 20).points == Approx(15.8496).epsilon(1e-4));
        CHECK(score_prediction(p, 100e-6, Regime::memory, 0).points == 0);
    }
}

TEST_CASE("score_run: a memory-bound copy against cudaMemcpy in the same run", "[score]") {
    Setup setup;
    const auto& v = setup.lab.variant("copy_fp32");  // n = 2^28 fp32: 2^31 bytes moved
    auto ceiling = choose_ceiling(setup.h200, nullptr, v.dtype);  // datasheet: 67 TFLOP/s, 4.8 TB/s
    auto prediction = predicted(600e-6, Regime::memory);

    // peer 500 us: 2^31 / 500e-6 = 4.295 TB/s; variant 625 us: 2^31 / 625e-6 = 3.436 TB/s
    auto s = score_run(setup.lab, v, lab_result("ok", 625e-6, 500e-6), setup.h200, ceiling, &prediction);
    CHECK(s.correct);
    CHECK_FALSE(s.impossible);
    CHECK(s.verdict == "correct");
    CHECK(s.unit == "TB/s");
    CHECK(s.roofline.regime == Regime::memory);
    CHECK(s.measured_regime == Regime::memory);
    CHECK(s.work.bytes == 2147483648.0);
    CHECK(s.achieved == Approx(3.4359738368));
    CHECK(s.peer_achieved == Approx(4.294967296));
    CHECK(s.peer_name == "cudaMemcpy D2D");
    CHECK(s.variant.median_s == 625e-6);
    CHECK(s.variant.count == 12);
    CHECK(s.sm_clock_mhz == 1980);
    // fraction of the peer = 500 / 625 = 0.8; of the 4.8 TB/s roofline = 3.436 / 4.8 = 0.7158
    CHECK(s.fraction_of_peer == Approx(0.8));
    CHECK(s.fraction_of_roofline == Approx(0.71583).epsilon(1e-4));
    CHECK(s.fraction == Approx(0.8));  // lab 01 scores against the peer
    CHECK(contains(s.scored_against, "cudaMemcpy"));
    CHECK(s.attainable == Approx(4.8));
    // floor 2^31 / 4.8e12 = 447.4 us
    CHECK(s.physical_floor_s == Approx(447.392e-6).epsilon(1e-5));
    // points: 40 + 50 * (0.8 - 0.5) / (0.9 - 0.5) = 40 + 37.5; prediction 625/600 = 1.04x, regime right: 10
    CHECK(s.correctness_points == 40);
    CHECK(s.performance_points == Approx(37.5));
    REQUIRE(s.prediction.has_value());
    CHECK(s.prediction->ratio == Approx(625.0 / 600.0));
    CHECK(s.prediction_points == Approx(10));
    CHECK(s.total() == Approx(87.5));
    CHECK(s.max_points == 100);
}

TEST_CASE("score_run: performance points are linear between floor and target fraction", "[score]") {
    Setup setup;
    const auto& v = setup.lab.variant("copy_fp32");  // floor 0.5, target 0.9, 50 points
    auto ceiling = choose_ceiling(setup.h200, nullptr, v.dtype);
    auto performance = [&](double variant_s) {
        return score_run(setup.lab, v, lab_result("ok", variant_s, 500e-6), setup.h200, ceiling, nullptr)
            .performance_points;
    };
    // fraction = 500 us / variant time
    CHECK(performance(1250e-6) == Approx(0));         // 0.4: below the floor
    CHECK(performance(1000e-6) == Approx(0));         // 0.5: at the floor
    CHECK(performance(500e-6 / 0.6) == Approx(12.5));  // 0.6: a quarter of the way
    CHECK(performance(500e-6 / 0.7) == Approx(25));    // 0.7: half
    CHECK(performance(500e-6 / 0.9) == Approx(50));    // 0.9: the target
    CHECK(performance(500e-6) == Approx(50));          // 1.0: capped at the points available
    // no prediction: nothing scored for it
    auto s = score_run(setup.lab, v, lab_result("ok", 600e-6, 500e-6), setup.h200, ceiling, nullptr);
    CHECK_FALSE(s.prediction.has_value());
    CHECK(s.prediction_points == 0);
}

TEST_CASE("score_run: against: roofline uses the ceiling, not the peer", "[score]") {
    Setup setup;
    auto lab = setup.lab;
    // lab.yaml's scoring.against is copied into every variant at load; a variant may override it.
    for (auto& variant : lab.variants) variant.against = "roofline";
    const auto& v = lab.variant("copy_fp32");
    auto ceiling = choose_ceiling(setup.h200, nullptr, v.dtype);
    auto s = score_run(lab, v, lab_result("ok", 625e-6, 500e-6), setup.h200, ceiling, nullptr);
    // 3.436 / 4.8 = 0.71583; points 50 * (0.71583 - 0.5) / 0.4 = 26.98
    CHECK(s.fraction == Approx(0.71583).epsilon(1e-4));
    CHECK(s.performance_points == Approx(26.979).epsilon(1e-4));
    check_mentions(s.scored_against, {"roofline", "datasheet", "test-gpu"});
}

TEST_CASE("score_run: a time below the datasheet floor is rejected and scores nothing", "[score]") {
    Setup setup;
    auto prediction = predicted(400e-6, Regime::memory);
    // floor 447.4 us; 400 us would be 5.37 TB/s on a 4.8 TB/s part
    auto s = setup.score("copy_fp32", "ok", 400e-6, &prediction);
    CHECK(s.impossible);
    CHECK_FALSE(s.correct);
    check_mentions(s.verdict, {"rejected", "physical floor"});
    CHECK(s.correctness_points == 0);
    CHECK(s.performance_points == 0);
    CHECK(s.prediction_points == 0);
    CHECK(s.total() == 0);

    // just above the floor is possible: 450 us
    auto ok = setup.score("copy_fp32", "ok", 450e-6);
    CHECK_FALSE(ok.impossible);
    CHECK(ok.correct);

    // the floor is the datasheet's even when a measured ceiling is lower: 4.24 TB/s measured
    // gives 506 us, but 460 us is still physically possible on a 4.8 TB/s part
    MeasuredCeilings m;
    m.memcpy_tbs = 4.24;
    m.measured_at = "2026-11-29T10:00:00Z";
    const auto& v = setup.lab.variant("copy_fp32");
    auto measured = choose_ceiling(setup.h200, &m, v.dtype);
    auto fast = score_run(setup.lab, v, lab_result("ok", 460e-6, 500e-6), setup.h200, measured, nullptr);
    CHECK_FALSE(fast.impossible);
    CHECK(fast.physical_floor_s == Approx(447.392e-6).epsilon(1e-5));
}

TEST_CASE("score_run: an incorrect result gets zero", "[score]") {
    auto prediction = predicted(800e-6, Regime::memory);
    auto s = Setup().score("add_fp32", "incorrect", 800e-6, &prediction);
    CHECK_FALSE(s.correct);
    CHECK_FALSE(s.impossible);
    CHECK(s.verdict == "incorrect");
    CHECK(s.total() == 0);
    CHECK_FALSE(s.prediction.has_value());
    CHECK(s.max_points == 100);
}

TEST_CASE("score_run: add moves three arrays, its peer two", "[score]") {
    // add: 3 * 2^30 bytes in 800 us = 4.027 TB/s; peer: 2^31 bytes in 500 us = 4.295 TB/s; fraction 0.9375
    auto s = Setup().score("add_fp32", "ok", 800e-6);
    CHECK(s.achieved == Approx(4.02653184));
    CHECK(s.fraction_of_peer == Approx(0.9375));
    CHECK(s.performance_points == Approx(50));
}

TEST_CASE("score_run: a compute-bound GEMM rung against cuBLAS", "[score]") {
    Setup setup;
    auto gemm = load_lab(test_data() / "labs" / "gemm_rules" / "lab.yaml");
    const auto& v = gemm.variant("tiled");  // fp32, target 0.8, floor 0
    auto ceiling = choose_ceiling(setup.h200, nullptr, v.dtype);  // 67 TFLOP/s fp32
    // 2 * 4096^3 = 137.44 GFLOP. cuBLAS 2.8 ms = 49.09 TFLOP/s; the rung 5 ms = 27.49 TFLOP/s
    auto s = score_run(gemm, v, lab_result("ok", 5e-3, 2.8e-3, "cuBLAS SGEMM"), setup.h200, ceiling, nullptr);
    CHECK(s.unit == "TFLOP/s");
    CHECK(s.roofline.regime == Regime::compute);
    CHECK(s.measured_regime == Regime::compute);
    CHECK(s.achieved == Approx(27.4877906944));
    CHECK(s.peer_achieved == Approx(49.0853405257));
    CHECK(s.attainable == Approx(67));
    CHECK(s.fraction_of_peer == Approx(0.56));
    CHECK(s.fraction_of_roofline == Approx(27.4877906944 / 67));
    // 50 * 0.56 / 0.8 = 35
    CHECK(s.performance_points == Approx(35));
    // compute floor 137.44e9 / 67e12 = 2.0513 ms; 1.9 ms is impossible
    CHECK(s.physical_floor_s == Approx(2.05132e-3).epsilon(1e-5));
    auto too_fast = score_run(gemm, v, lab_result("ok", 1.9e-3, 2.8e-3, "cuBLAS SGEMM"), setup.h200, ceiling, nullptr);
    CHECK(too_fast.impossible);
    CHECK(too_fast.total() == 0);
}

TEST_CASE("TimingSummary reads the lab program's statistics", "[score]") {
    auto t = nlohmann::json(timing_stats(2e-3, 17)).get<TimingSummary>();
    CHECK(t.median_s == 2e-3);
    CHECK(t.q1_s == Approx(1.98e-3));
    CHECK(t.q3_s == Approx(2.02e-3));
    CHECK(t.min_s == Approx(1.96e-3));
    CHECK(t.rse == 0.002);
    CHECK(t.count == 17);
    CHECK_THROWS_AS(nlohmann::json({{"median_s", 1.0}}).get<TimingSummary>(), protocol::MalformedResult);
    // A grade job's answer without its timing cannot be scored, and says so.
    auto untimed = lab_result("ok", 1e-3, 1e-3);
    untimed.timing.reset();
    const auto lab = load_lab(repo_root() / "labs" / "01-memory-roof" / "lab.yaml");
    const auto& v = lab.variant("copy_naive_fp32");
    const auto gpu = test_gpu();
    CHECK_THROWS_AS(score_run(lab, v, untimed, gpu, choose_ceiling(gpu, nullptr, v.dtype), nullptr), std::invalid_argument);
}

namespace {

Prediction predicted_bytes(double time_s, std::optional<double> bytes) {
    auto p = predicted(time_s, Regime::memory);
    p.predicted_dram_bytes = bytes;
    return p;
}

ProfileEntry counted_bytes(double dram_bytes, const std::string& prediction_id = "p1") {
    ProfileEntry e;
    e.prediction_id = prediction_id;
    e.dram_bytes = dram_bytes;
    return e;
}

}  // namespace

TEST_CASE("score_byte_prediction: all the points within 10% of ncu's count, none beyond", "[score][bytes]") {
    auto p = predicted_bytes(600e-6, 2.0e9);
    auto points = [&](double counted) {
        auto e = counted_bytes(counted);
        return score_byte_prediction(p, &e, "02-profile/copy_staged_fp32", 5).points;
    };
    CHECK(points(2.0e9) == 5);
    CHECK(points(2.19e9) == 5);   // 1.095x
    CHECK(points(1.81e9) == 5);   // 0.905x
    CHECK(points(2.21e9) == 0);   // 1.105x
    CHECK(points(1.79e9) == 0);   // 0.895x
    CHECK(points(16.0e9) == 0);   // 8x: the scattered copy's surprise
    auto e = counted_bytes(2.126e9);
    auto s = score_byte_prediction(p, &e, "02-profile/copy_staged_fp32", 5);
    CHECK(s.ratio == Approx(1.063));
    check_mentions(s.verdict, {"2.126e+09", "1.06x", "within 10%"});
    auto far = counted_bytes(4e9);
    CHECK(contains(score_byte_prediction(p, &far, "02-profile/copy_staged_fp32", 5).verdict, "more than 10% off"));

    SECTION("not profiled yet: nothing, and the verdict says what to run") {
        auto s = score_byte_prediction(p, nullptr, "02-profile/copy_staged_fp32", 5);
        CHECK(s.points == 0);
        CHECK(contains(s.verdict, "roofline profile 02-profile/copy_staged_fp32"));
    }
    SECTION("a prediction without --bytes: nothing, and the verdict says how to make one") {
        auto none = predicted_bytes(600e-6, std::nullopt);
        auto e = counted_bytes(2.0e9);
        auto s = score_byte_prediction(none, &e, "02-profile/copy_staged_fp32", 5);
        CHECK(s.points == 0);
        CHECK(contains(s.verdict, "--bytes"));
    }
}

TEST_CASE("score_run: a lab with byte_prediction points adds them to the total", "[score][bytes]") {
    Setup setup;
    auto lab = setup.lab;
    lab.scoring.byte_prediction = 5;
    const auto& v = lab.variant("copy_fp32");
    auto ceiling = choose_ceiling(setup.h200, nullptr, v.dtype);
    auto prediction = predicted_bytes(600e-6, 2.1e9);
    auto close = counted_bytes(2.147e9), far = counted_bytes(4.3e9);

    // The same run as "a memory-bound copy against cudaMemcpy": 40 + 37.5 + 10 of 100, now of 105.
    auto s = score_run(lab, v, lab_result("ok", 625e-6, 500e-6), setup.h200, ceiling, &prediction, std::nullopt, &close);
    REQUIRE(s.byte_prediction.has_value());
    CHECK(s.byte_prediction_points == 5);
    CHECK(s.total() == Approx(92.5));
    CHECK(s.max_points == 105);

    auto off = score_run(lab, v, lab_result("ok", 625e-6, 500e-6), setup.h200, ceiling, &prediction, std::nullopt, &far);
    CHECK(off.byte_prediction_points == 0);
    CHECK(off.total() == Approx(87.5));

    auto unprofiled = score_run(lab, v, lab_result("ok", 625e-6, 500e-6), setup.h200, ceiling, &prediction);
    REQUIRE(unprofiled.byte_prediction.has_value());
    CHECK(unprofiled.byte_prediction_points == 0);
    CHECK(contains(unprofiled.byte_prediction->verdict, "roofline profile scoring/copy_fp32"));

    // An incorrect kernel earns no prediction points of either kind.
    auto wrong = score_run(lab, v, lab_result("mismatch", 625e-6, 500e-6), setup.h200, ceiling, &prediction,
                           std::nullopt, &close);
    CHECK(wrong.byte_prediction_points == 0);
    CHECK(wrong.total() == 0);
}

TEST_CASE("score_run: a lab without byte_prediction points scores exactly as before, bytes or not", "[score][bytes]") {
    Setup setup;  // the fixture lab gives no byte_prediction points
    REQUIRE(setup.lab.scoring.byte_prediction == 0);
    const auto& v = setup.lab.variant("copy_fp32");
    auto ceiling = choose_ceiling(setup.h200, nullptr, v.dtype);
    auto plain = predicted(600e-6, Regime::memory);
    auto with_bytes = predicted_bytes(600e-6, 2.147e9);
    auto close = counted_bytes(2.147e9);
    auto before = score_run(setup.lab, v, lab_result("ok", 625e-6, 500e-6), setup.h200, ceiling, &plain);
    auto after = score_run(setup.lab, v, lab_result("ok", 625e-6, 500e-6), setup.h200, ceiling, &with_bytes,
                           std::nullopt, &close);
    CHECK_FALSE(after.byte_prediction.has_value());
    CHECK(after.byte_prediction_points == 0);
    CHECK(after.total() == Approx(before.total()));
    CHECK(after.total() == Approx(87.5));
    CHECK(after.max_points == 100);
    // Every shipped lab but 06 gives byte predictions and diagnoses no points, so their totals keep their sums.
    for (const auto& lab : load_labs(repo_root() / "labs")) {
        INFO(lab.id);
        CHECK(lab.scoring.byte_prediction == (lab.id == "02-profile" ? 5 : 0));
        CHECK(lab.scoring.diagnosis == (lab.id == "02-profile" ? 10 : 0));
        CHECK(lab.scoring.total() == lab.scoring.correctness + lab.scoring.performance + lab.scoring.prediction +
                                         lab.scoring.byte_prediction + lab.scoring.diagnosis);
    }
}
