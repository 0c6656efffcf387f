// The lab 00 regime classifier: time against size.
#include "catch.hpp"
#include "regime_sweep.hpp"

#include <cmath>
#include <stdexcept>

using roofline::Ceiling;
using roofline::classify_sweep;
using roofline::Regime;
using roofline::SweepPoint;

namespace {

// An H200-like roof: 60 TFLOP/s fp32, 4 TB/s; ridge 15 FLOP/byte.
const Ceiling kRoof{60, 4};

// A scale kernel (1 FLOP, 8 bytes per element) at 90% of 4 TB/s: t = 8n / 3.6e12.
SweepPoint memory_point(double n) { return {n, 8 * n / 3.6e12, {n, 8 * n}}; }
// A 1024-FLOP-per-element chain at 90% of 60 TFLOP/s: t = 1024n / 54e12.
SweepPoint compute_point(double n) { return {n, 1024 * n / 54e12, {1024 * n, 8 * n}}; }
// 512 launches at 4 us each, whatever n is (the work itself is negligible).
SweepPoint overhead_point(double n) { return {n, 512 * 4e-6, {1024 * n, 8 * n}}; }

}  // namespace

TEST_CASE("time that scales with n and sits near the memory roof is memory-bound", "[sweep]") {
    auto v = classify_sweep({memory_point(1 << 26), memory_point(1 << 24), memory_point(1 << 22)}, kRoof);
    CHECK(v.regime == Regime::memory);
    CHECK(v.scaling_exponent == Approx(1.0).margin(1e-9));
    CHECK(v.memory_fraction == Approx(0.9));
    CHECK(v.compute_fraction == Approx(0.9 * 4 / 8 / 60 * 1));  // (n / t) / 60e12 = 3.6e12 / 8 / 60e12
}

TEST_CASE("time that scales with n and sits near the compute roof is compute-bound", "[sweep]") {
    auto v = classify_sweep({compute_point(1 << 24), compute_point(1 << 22), compute_point(1 << 20)}, kRoof);
    CHECK(v.regime == Regime::compute);
    CHECK(v.compute_fraction == Approx(0.9));
    // bytes: 8n / t / 4e12 = 8 * 54e12 / 1024 / 4e12 = 0.105
    CHECK(v.memory_fraction == Approx(8 * 54.0 / 1024 / 4));
}

TEST_CASE("time that does not move with n is overhead-bound", "[sweep]") {
    auto v = classify_sweep({overhead_point(8192), overhead_point(2048), overhead_point(512)}, kRoof);
    CHECK(v.regime == Regime::overhead);
    CHECK(v.scaling_exponent == Approx(0).margin(1e-9));
}

TEST_CASE("the overhead threshold: a 16x smaller input that halves the time is the edge", "[sweep]") {
    // t ~ n^e. Just under the threshold exponent: overhead; just over: work-bound.
    auto with_exponent = [](double e) {
        std::vector<SweepPoint> points;
        for (double n : {1 << 20, 1 << 18, 1 << 16}) points.push_back({n, 1e-3 * std::pow(n / (1 << 20), e), {8 * n, 8 * n}});
        return classify_sweep(points, kRoof);
    };
    CHECK(with_exponent(roofline::kOverheadExponent - 0.01).regime == Regime::overhead);
    CHECK(with_exponent(roofline::kOverheadExponent + 0.01).regime != Regime::overhead);
}

TEST_CASE("order of the points does not matter", "[sweep]") {
    auto a = classify_sweep({memory_point(1 << 22), memory_point(1 << 26), memory_point(1 << 24)}, kRoof);
    CHECK(a.regime == Regime::memory);
    CHECK(a.memory_fraction == Approx(0.9));  // taken at the largest n, wherever it stands in the list
}

TEST_CASE("a sweep needs two distinct sizes and positive times", "[sweep]") {
    CHECK_THROWS_AS(classify_sweep({memory_point(1 << 20)}, kRoof), std::invalid_argument);
    CHECK_THROWS_AS(classify_sweep({memory_point(1 << 20), memory_point(1 << 20)}, kRoof), std::invalid_argument);
    CHECK_THROWS_AS(classify_sweep({memory_point(1 << 20), {1 << 18, 0, {1, 1}}}, kRoof), std::invalid_argument);
}
