#include "regime_sweep.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace roofline {

SweepVerdict classify_sweep(const std::vector<SweepPoint>& points, const Ceiling& ceiling) {
    if (points.size() < 2) throw std::invalid_argument("a size sweep needs at least two sizes");
    for (const auto& p : points) {
        if (!(p.n > 0) || !(p.time_s > 0)) throw std::invalid_argument("sweep sizes and times must be positive");
    }
    // Least-squares slope of log(time) against log(n).
    double mean_x = 0, mean_y = 0;
    for (const auto& p : points) {
        mean_x += std::log(p.n);
        mean_y += std::log(p.time_s);
    }
    mean_x /= points.size();
    mean_y /= points.size();
    double sxx = 0, sxy = 0;
    for (const auto& p : points) {
        sxx += (std::log(p.n) - mean_x) * (std::log(p.n) - mean_x);
        sxy += (std::log(p.n) - mean_x) * (std::log(p.time_s) - mean_y);
    }
    if (sxx == 0) throw std::invalid_argument("a size sweep needs at least two different sizes");

    SweepVerdict v;
    v.scaling_exponent = sxy / sxx;
    const auto& largest = *std::max_element(points.begin(), points.end(),
                                            [](const SweepPoint& a, const SweepPoint& b) { return a.n < b.n; });
    v.compute_fraction = largest.work.flops / largest.time_s / (ceiling.peak_tflops * 1e12);
    v.memory_fraction = largest.work.bytes / largest.time_s / (ceiling.bandwidth_tbs * 1e12);
    double shrink = points.front().n / points.back().n;
    if (v.scaling_exponent < kOverheadExponent) {
        v.regime = Regime::overhead;
        v.reason = fmt::format("time ~ n^{:.2f}: the input changed {:g}x and the time barely moved, so a fixed cost "
                               "per launch dominates", v.scaling_exponent, std::max(shrink, 1 / shrink));
    } else if (v.compute_fraction >= v.memory_fraction) {
        v.regime = Regime::compute;
        v.reason = fmt::format("time ~ n^{:.2f} and at the largest size it runs at {:.0f}% of the compute roof "
                               "against {:.0f}% of the memory roof", v.scaling_exponent, 100 * v.compute_fraction,
                               100 * v.memory_fraction);
    } else {
        v.regime = Regime::memory;
        v.reason = fmt::format("time ~ n^{:.2f} and at the largest size it runs at {:.0f}% of the memory roof "
                               "against {:.0f}% of the compute roof", v.scaling_exponent, 100 * v.memory_fraction,
                               100 * v.compute_fraction);
    }
    return v;
}

}  // namespace roofline
