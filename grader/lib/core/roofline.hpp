// The roofline model: how much work, how many bytes, and which of the two
// limits the time. Everything here is plain arithmetic on counted quantities;
// the counts themselves come from the problem families' models
// (grader/problems/*/model.hpp), which `roofline calc` uses too.
#pragma once
#include "dtype.hpp"
#include "workload.hpp"

#include <optional>
#include <string_view>

namespace roofline {

// The fixed cost of one kernel launch, back to back (about 5 us on the H200 we
// measured; `roofline ceilings` measures it per GPU). Below it both floors are
// hidden and the calculator calls the regime overhead.
inline constexpr double kTypicalLaunchOverheadS = 5e-6;

struct Ceiling {
    double peak_tflops = 0;    // the unit that does this dtype's arithmetic
    double bandwidth_tbs = 0;  // device memory, TB/s (1e12 bytes per second)
};

enum class Regime { compute, memory, overhead };
std::string_view regime_name(Regime regime);
std::optional<Regime> parse_regime(std::string_view name);

struct RooflinePoint {
    double intensity = 0;        // FLOP per byte of the workload
    double ridge = 0;            // FLOP per byte where the two roofs meet: peak / bandwidth
    double compute_floor_s = 0;  // FLOPs / peak
    double memory_floor_s = 0;   // bytes / bandwidth
    double floor_s = 0;          // the roofline floor, the larger of the two: no kernel runs faster
    // The time floor: the roofline floor, or the launch cost passed to analyze() where that is
    // larger. What `calc`, the report's calculator and `classify` call "the floor"; the
    // scores measure against floor_s, the roofs alone.
    double time_floor_s = 0;
    double attainable_tflops = 0;  // min(peak, bandwidth x intensity)
    double attainable_tbs = 0;     // bytes / floor_s
    Regime regime = Regime::memory;  // which roof the workload sits under
};

// `launch_overhead_s`: when both floors are below it, the fixed cost of a launch
// dominates and the regime is overhead. Pass 0 to classify only by the roofs.
RooflinePoint analyze(const Workload& work, const Ceiling& ceiling, double launch_overhead_s = 0);

// The smallest square GEMM size N whose intensity reaches the ridge:
// intensity(N) = 2N / (3 * bytes per element), so N = ceil(1.5 * bytes * ridge).
long long gemm_crossover_n(const Ceiling& ceiling, Dtype dtype);

}  // namespace roofline
